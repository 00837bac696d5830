// Package agent is everything that runs on a board: the probe, the sweep runner, the parser of `openssl speed`
// output for every OpenSSL version from 1.0 to 3.6, CPU accounting, the kernel crypto API benchmark, and the
// JSON-lines protocol spoken to the controller.
//
// It is cross-compiled for ARMv5 upwards and imports only the standard library and golang.org/x/sys.
package agent
