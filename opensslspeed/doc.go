// Package opensslspeed reads `openssl speed` output of every OpenSSL version from 1.0.x to 3.x — the human
// tables (names with spaces, 8192 or 16384 as the top size), `-mr` machine-readable lines, `-multi N` with
// interleaved children, the rsa/dsa/ecdsa/eddsa/kem tables, and logs pasted with prompts and wrapped lines — into
// protocol.Points, and knows the canonical algorithm names and the argv that measures each.
//
// Parse is the entry point. The package does no I/O beyond reading the string it is given; it imports only the
// standard library and protocol, because the agent (cross-compiled for ARMv5) uses it too.
package opensslspeed
