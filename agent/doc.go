// Package agent is everything that runs on a board: the probe, the sweep runner, CPU accounting, /proc and /sys
// readers, and the kernel crypto API (AF_ALG) benchmark. It speaks the JSON-lines protocol of package protocol and
// reads `openssl speed` output with package opensslspeed.
//
// The probe (probe*.go) also records what the openssl processes run with and what the kernel offers them
// (probe_environment.go): the OPENSSL_* environment, the configuration's engine and provider sections as a digest
// (opensslconf.go), the openssl binary's sha256 (with the agent's own SHA-256, main_sha256.go: crypto/sha256 costs
// the ARMv5 binary too much), /proc/cmdline, and every module name of /proc/modules (procfs_modules.go; the
// controller picks the crypto-related ones). The ARMv5 binary is measured against its budget by
// TestCrossCompileAgent; its text segment grows in 64 KiB steps, so a few hundred bytes can cost 64 KiB.
//
// It is cross-compiled for ARMv5 upwards and imports only the standard library, golang.org/x/sys and those two
// leaves of this module (TestAgentDependencies keeps it so).
package agent
