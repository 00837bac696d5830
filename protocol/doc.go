// Package protocol holds the types every side of fleet shares: what the agent sends (Hello, Facts, Point, Skip,
// Raw, Log, Done) and the JSON-lines codec that carries them, what the controller sends (Plan), the mode names
// (ModeSoft, ModeCPU, …, with the checklist for adding one), the default block sizes and the run/board Status.
//
// It is a leaf: the standard library only, no other package of this module. The agent is cross-compiled with it
// for ARMv5 boards; store, report, inventory and the CLI read its types without importing the agent. For the
// agent's size it writes and reads JSON with its own codec, not encoding/json (json_encode.go says why).
//
// Files:
//
//   - protocol.go: the message types, Encoder, Point.Validate;
//   - decode.go: Decoder and DecodeLine (line cap, validation), the errors the controller decides on;
//   - json_encode.go, json_decode.go, json_decode_object.go: EncodeJSON and DecodeJSON, encoding/json's output
//     and decoding for the types the wire uses;
//   - plan.go: Plan and the validity limits the controller sends;
//   - facts.go: Facts, what the probe learns about a board;
//   - cpus.go: Cluster, a board's classes of cores, and the CPU selections a sweep is pinned to;
//   - energy.go, energy_trace.go: a point's energy, the power plan and facts, and PowerTrace, which integrates
//     a sensor's or meter's readings over each point's window;
//   - evidence.go: Evidence and the default background limits;
//   - modes.go: the mode names and the per-mode table that is the checklist for adding one;
//   - kcapi_drivers.go: mode kcapi:DRIVER, driver names and the CPU implementations among them;
//   - crypto.go: /proc/crypto entries by kind;
//   - modules.go: the crypto-related module names of /proc/modules;
//   - kernel.go, kernel_parse.go: the kernel's log during a sweep, /dev/kmsg records and `dmesg -r` lines;
//   - kernel_patterns.go: the kernel-log patterns (the defaults and a board's own), matched on the board and
//     by the controller alike;
//   - pattern.go, pattern_parse.go: Pattern, the subset of Go's regexp syntax that fleet's patterns use, in a
//     matcher small enough for the agent's size budget (package regexp is 196,608 B of an ARMv5 agent);
//   - verify.go, verify_sign.go: the verification inputs and VerifyReport, and the signature check's inputs;
//   - ssh.go: mode ssh's ciphers and the transfer report;
//   - lease.go: Lease, which run holds a board;
//   - status.go: Status of a board run or a run.
package protocol
