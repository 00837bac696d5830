// Package opensslspeed reads `openssl speed` output of every OpenSSL version from 1.0.x to 3.x — the human
// tables (names with spaces, 8192 or 16384 as the top size), `-mr` machine-readable lines, `-multi N` with
// interleaved children, the rsa/dsa/ecdsa/eddsa/kem tables, and logs pasted with prompts and wrapped lines — into
// protocol.Points, and knows the canonical algorithm names and the argv that measures each.
//
// Scanner is the entry point for a capture of any size: it reads a stream and returns one Run at a time in
// bounded memory (lines up to MaxLineBytes, at most 1024 measurements a run). Parse does the same for a string.
//
// Hostile or damaged input is refused, never silently dropped or kept: a number outside the bounds below, a
// negative count or time, a number that is not finite ("1e400", "nan"), and an algorithm name with control
// characters give no point but a Problem of their run (with its line), and the run is Failed. The bounds, far
// above any real figure: block size 1 B to MaxBlockSize (1 GiB); count 0 to MaxCount (1e15); seconds 0 to
// MaxSeconds (1e6); rates up to MaxBytesPerSec (1e13 B/s) and MaxOpsPerSec (1e10/s); -multi up to MaxThreads
// (1024). A row labelled "evp" is named by the `-evp ALG` of the command line in the text, else by
// Hint.Algorithm, else it is the Problem ErrUnnamedEVP.
//
// The package does no I/O beyond reading what it is given; it imports only the standard library and protocol,
// because the agent (cross-compiled for ARMv5) uses it too.
package opensslspeed
