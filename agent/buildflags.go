package agent

// BuildFlags are the go build flags of every agent binary, the controller's (fleet.BuildAgent) and the tests'
// and benchmarks' alike, so that the size the budget tests measure is the size a board receives.
//
//   - -trimpath and -ldflags=-s -w: no local paths, symbol table or DWARF in what is pushed to every board;
//   - -gcflags=github.com/fleetlab/fleet/...=-l: no inlining in fleet's own packages. The agent's code
//     orchestrates openssl processes and reads /proc and sysfs; its hot loops are the kernel's (AF_ALG) and
//     openssl's, not Go's. Inlining our code cost 128 KiB of the ARMv5 file (3,145,890 B, over the 3 MiB
//     budget, against 3,014,818 B without it, measured 2026-12-06), since the file grows in 64 KiB steps of
//     its segments. The standard library and runtime keep their inlining.
var BuildFlags = []string{"-trimpath", "-ldflags=-s -w", "-gcflags=github.com/fleetlab/fleet/...=-l"}
