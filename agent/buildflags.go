package agent

// BuildFlags are the go build flags of every agent binary, the controller's (fleet.BuildAgent) and the tests'
// and benchmarks' alike, so that the size the budget tests measure is the size a board receives.
//
//   - -trimpath and -ldflags=-s -w: no local paths, symbol table or DWARF in what is pushed to every board;
//   - -gcflags=all=-l: no inlining, in fleet's packages and in the standard library and runtime alike. The
//     agent's code orchestrates openssl processes and reads /proc and sysfs; its hot loops are the kernel's
//     (AF_ALG) and openssl's, not Go's. The file grows in 64 KiB steps of its segments, and inlining is what
//     the steps are made of: with inlining in fleet's packages the ARMv5 file was 3,145,890 B (over the
//     3 MiB budget, 3,145,728 B), without it there 3,014,818 B until the pinning checks brought it back to
//     3,145,890; without inlining anywhere it is 3,014,818 B with 36 KB of code and 48 KB of read-only data
//     below their next steps (pclntab shrinks more than the code grows). Measured 2026-12-07 with
//     `GOARCH=arm GOARM=5 go build` and readelf -lW; the evidence read around a point,
//     BenchmarkEvidencePerPoint, took 0.52 ms (median of 3 × 200) with the standard library inlined and
//     0.49 ms without on this busy 2-core host: its time is the kernel's.
var BuildFlags = []string{"-trimpath", "-ldflags=-s -w", "-gcflags=all=-l"}
