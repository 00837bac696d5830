package fleet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/verify"
)

// ErrWrongOutput is a board whose measured path gave a wrong output for a verification input (or failed or hung
// under the concurrency check): its points are stored marked wrong and the board fails, whatever the speed.
var ErrWrongOutput = errors.New("wrong output")

// verdictKey is one mode and algorithm of a board's sweep. An asymmetric algorithm is its stored name and key
// size or curve, as its points carry them ("rsa" 2048, "ecdsa" nistp256), not the plan's "rsa2048".
type verdictKey struct {
	mode, alg string
	bits      int
	curve     string
}

// reportKey is the verdictKey of a report for the plan's algorithm alg.
func reportKey(mode, alg string) verdictKey {
	if a, bits, curve, ok := opensslspeed.AsymName(alg); ok {
		return pointKey(mode, a, bits, curve)
	}
	return verdictKey{mode: mode, alg: alg}
}

// pointKey is the verdictKey of a point: a curve names an algorithm's key whatever bits the output printed.
func pointKey(mode, alg string, bits int, curve string) verdictKey {
	if curve != "" {
		bits = 0
	}
	return verdictKey{mode, alg, bits, curve}
}

// verifyPlan asks the agent to verify every mode and algorithm before measuring it, with threads workers in
// the concurrency check of accelerated modes (-1: the board's cores; 0: none).
func verifyPlan(p *protocol.Plan, threads int) {
	p.Verify = true
	p.VerifyThreads = threads
	p.VerifySign = verify.SignInputs(p.Algorithms)
}

// verified judges the agent's report for one mode and algorithm; the points of that mode and algorithm that
// follow carry the verdict.
func (r *recorder) verified(rep protocol.VerifyReport) verify.Result {
	res := verify.Judge(rep)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.verdicts == nil {
		r.verdicts = map[verdictKey]verify.Result{}
	}
	k := reportKey(rep.Mode, rep.Algorithm)
	if old, ok := r.verdicts[k]; ok && old.Verdict == protocol.VerificationWrong {
		return old // a second report cannot make a wrong path right
	}
	r.verdicts[k] = res
	r.verifySeconds += rep.Seconds
	if res.Verdict == protocol.VerificationWrong {
		r.wrong = append(r.wrong, fmt.Sprintf("%s %s: %s", rep.Mode, rep.Algorithm, res.Detail))
	}
	return res
}

// markVerification sets a point's verification from its mode and algorithm's verdict. A point of a sweep that
// verified, without a report for its path, is unknown; mode ssh's points are the SSH client's own (every
// packet's MAC is checked by the protocol, not by fleet).
func (r *recorder) markVerification(p *protocol.Point) {
	if !r.verifying || p.Verification != "" {
		return
	}
	r.mu.Lock()
	res, ok := r.verdicts[pointKey(p.Mode, p.Algorithm, p.KeyBits, p.Curve)]
	r.mu.Unlock()
	switch {
	case ok && res.Verdict == protocol.VerificationOK && protocol.IsAccelerated(p.Mode) && res.Chunked[p.BlockSize] > 0:
		// OpenSSL's own code (soft, cpu) runs a long buffer in the loop a 4 KiB one runs in; a driver gets the
		// point's block as one scatter-gather request, which no input of the verification was
		p.Verification = protocol.VerificationUnknown
		p.VerificationDetail = fmt.Sprintf("%d B inputs reached the path only in requests of %d B (openssl enc hands a "+
			"cipher 4 KiB at a time, dgst a digest 8 KiB, and the agent has no one-piece request of its own for this "+
			"path or runs not on the board): its %d B requests are unverified; smaller sizes verified ok",
			p.BlockSize, res.Chunked[p.BlockSize], p.BlockSize)
	case ok:
		p.Verification, p.VerificationDetail = res.Verdict, res.Detail
	case p.Mode == protocol.ModeSSH:
		p.Verification = protocol.VerificationUnknown
		p.VerificationDetail = "mode ssh: the SSH protocol checks every packet's MAC; fleet does not verify it again"
	default:
		p.Verification = protocol.VerificationUnknown
		p.VerificationDetail = "the agent sent no verification of this path"
	}
}

// Verified counts a board's verified paths (each mode × algorithm whose output the controller checked before
// it was measured) by verdict, for the run's summary, which words them for people.
type Verified struct {
	Paths, OK, Unknown, Wrong int
	Seconds                   float64 // the board's time spent verifying
}

// String is "8 paths: 6 ok, 2 unknown; 3.2 s on the board" (a count of 0 is left out), "" when nothing was
// verified.
func (v Verified) String() string {
	if v.Paths == 0 {
		return ""
	}
	return fmt.Sprintf("%d paths: %s; %.1f s on the board", v.Paths, v.Counts(), v.Seconds)
}

// Counts is "6 ok, 2 unknown, 1 wrong", leaving out the verdicts no path had.
func (v Verified) Counts() string {
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{v.OK, protocol.VerificationOK}, {v.Unknown, protocol.VerificationUnknown}, {v.Wrong, protocol.VerificationWrong}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return strings.Join(parts, ", ")
}

// verificationSummary counts the board's verdicts; zero when nothing was verified.
func (r *recorder) verificationSummary() Verified {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := Verified{Paths: len(r.verdicts), Seconds: r.verifySeconds}
	for _, res := range r.verdicts {
		switch res.Verdict {
		case protocol.VerificationOK:
			v.OK++
		case protocol.VerificationWrong:
			v.Wrong++
		default:
			v.Unknown++
		}
	}
	return v
}

// event hands e to the board's progress, if it has one.
func (r *recorder) event(e Event) {
	if r.progress != nil {
		r.progress(e)
	}
}

// wrongOutput is the board's error when any path was wrong, naming mode, algorithm, size and direction; nil
// otherwise.
func (r *recorder) wrongOutput() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.wrong) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrWrongOutput, strings.Join(r.wrong, "; "))
}
