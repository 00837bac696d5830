// Package agent is what runs on a board — the probe, the sweep runner, CPU accounting, /proc and /sys readers,
// the kernel crypto API (AF_ALG) benchmark and the verification of each path's output — and, through the Remote
// interface (remote.go, verify_remote.go), the same probe and sweep logic run by the controller for boards the
// agent cannot run on: package fleet's shell path drives a board's own POSIX shell and openssl with it. It speaks
// the JSON-lines protocol of package protocol and reads `openssl speed` output with package opensslspeed.
//
// The probe (probe*.go) also records what the openssl processes run with and what the kernel offers them
// (probe_environment.go): the OPENSSL_* environment, the configuration's engine and provider sections as a digest
// (opensslconf.go), the openssl binary's sha256 (with the agent's own SHA-256, main_sha256.go: crypto/sha256 costs
// the ARMv5 binary too much), /proc/cmdline, and every module name of /proc/modules (procfs_modules.go; the
// controller picks the crypto-related ones).
//
// The budget: every ARM agent (arm5, arm6, arm7, arm64) must fit in 3 MiB, every other target in 3.5 MiB
// (TestCrossCompileAgent builds each the way the controller does). The file grows in 64 KiB steps, so a few
// hundred bytes can cost 64 KiB. That is why the agent links neither package regexp (protocol.Pattern
// matches its patterns) nor encoding/json (protocol.EncodeJSON and DecodeJSON): TestAgentLeavesOutHeavyPackages.
// Smaller habits count too: slices.SortFunc compiles a pdqsort per element type (about 7 KB of ARMv5 code each;
// sort.Slice is one copy for all), os.ReadDir sorts with one, a map literal is code run at init where a list of
// constants is data, and a package variable set by a call at init (sync.OnceValue) keeps what it reaches.
//
// It is cross-compiled for ARMv5 upwards and imports only the standard library, golang.org/x/sys and four pure
// leaves of this module — protocol, opensslspeed, precision (the stopping rule of adaptive repeats) and validity
// (the verdict on a repeat) — as TestAgentDependencies checks.
package agent
