// Package verify is the controller's judge of a path's output: it takes what the agent (or any other measuring
// path, such as the POSIX-shell one) saw when the deterministic verification inputs of package protocol went
// through the path a mode measures, recomputes each output with Go's own crypto, and says ok, wrong (with the
// size, direction and first differing byte) or unknown (with why).
//
// It imports nothing of the module but protocol and opensslspeed (the signature algorithms' names and key
// sizes), and does no I/O.
//
// Files:
//
//   - oracle.go: Expected, each cipher's and digest's output computed with Go's crypto;
//   - judge.go: Judge, a protocol.VerifyReport compared with the oracle, case by case, into a Result;
//   - sign.go: the signature check, SignInputs (the key and message sent per algorithm) and IsSignature;
//   - keys.go: the fixed, published RSA test keys the signature check signs with (generating one costs minutes).
package verify
