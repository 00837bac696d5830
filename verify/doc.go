// Package verify is the controller's judge of a path's output: it takes what the agent (or any other measuring
// path, such as the POSIX-shell one) saw when the deterministic verification inputs of package protocol went
// through the path a mode measures, recomputes each output with Go's own crypto, and says ok, wrong (with the
// size, direction and first differing byte) or unknown (with why).
//
// oracle.go computes the expected outputs; judge.go compares them with a protocol.VerifyReport. It imports
// nothing of the module but protocol, and does no I/O.
package verify
