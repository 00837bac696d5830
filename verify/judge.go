package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// Result is the verdict on one mode and algorithm's path.
type Result struct {
	Verdict string // protocol.VerificationOK, VerificationWrong or VerificationUnknown
	Detail  string // what was wrong, first, or why it is unknown; "" when ok
	Size    int    // wrong: the input size of the first wrong case (0 for a concurrency failure)
	Op      string // wrong: the operation of the first wrong case
	Cases   int    // cases judged
	// Chunked are the input sizes the path saw only in smaller requests, never whole, by the largest request it
	// got: openssl enc hands a cipher 4 KiB at a time and dgst a digest 8 KiB, so without a one-piece request of
	// the agent's own a point of such a block size measured requests no verification input made.
	Chunked map[int]int
}

// Judge compares every case of r with the oracle. One wrong case makes the path wrong; a report without cases
// or for an algorithm without an oracle is unknown; a concurrency check with a wrong output, an error or a hang
// is wrong.
func Judge(r protocol.VerifyReport) Result {
	var sign *signKey
	if IsSignature(r.Algorithm) {
		// the controller's reason first: the agent only knows that no key came
		k, err := newSignKey(r.Algorithm)
		if err != nil {
			return Result{Verdict: protocol.VerificationUnknown, Detail: err.Error()}
		}
		sign = &k
	}
	if r.Unknown != "" {
		return Result{Verdict: protocol.VerificationUnknown, Detail: r.Unknown}
	}
	if len(r.Cases) == 0 {
		return Result{Verdict: protocol.VerificationUnknown, Detail: "the path gave no verification outputs"}
	}
	var wrong []Result
	unknown := ""
	for _, c := range r.Cases {
		var why string
		if sign != nil {
			why = judgeSign(*sign, c)
		} else {
			want, err := Expected(r.Algorithm, c)
			if err != nil {
				if unknown == "" {
					unknown = caseName(c) + ": " + err.Error()
				}
				continue
			}
			why = compare(c, want)
		}
		if why != "" {
			wrong = append(wrong, Result{Verdict: protocol.VerificationWrong, Detail: caseName(c) + ": " + why, Size: c.Size, Op: c.Op})
		}
	}
	if r.Concurrency != nil {
		if why := judgeConcurrency(r.Algorithm, *r.Concurrency); why != "" {
			wrong = append(wrong, Result{Verdict: protocol.VerificationWrong, Detail: why, Size: r.Concurrency.Size, Op: r.Concurrency.Op})
		}
	}
	if sign != nil && len(wrong) == 0 {
		unknown = missingSignOps(r.Cases)
	}
	chunked := chunkedSizes(r.Cases)
	switch {
	case len(wrong) == 0 && unknown != "":
		// a wrong case elsewhere wins: one input the oracle cannot check proves nothing about the others
		return Result{Verdict: protocol.VerificationUnknown, Detail: unknown, Cases: len(r.Cases)}
	case len(wrong) == 0:
		return Result{Verdict: protocol.VerificationOK, Cases: len(r.Cases), Chunked: chunked}
	}
	first := wrong[0]
	first.Cases = len(r.Cases)
	if len(wrong) > 1 {
		first.Detail += fmt.Sprintf(" (%d of %d checks wrong)", len(wrong), len(r.Cases)+btoi(r.Concurrency != nil))
	}
	return first
}

// chunkedSizes are the sizes of cases whose every case reached the path in smaller requests, by the largest; nil
// when there are none. A case that does not say its request (an older agent's) counts as whole.
func chunkedSizes(cases []protocol.VerifyCase) map[int]int {
	largest := map[int]int{}
	for _, c := range cases {
		req := c.Request
		if req == 0 {
			req = c.Size
		}
		largest[c.Size] = max(largest[c.Size], req)
	}
	var out map[int]int
	for size, req := range largest {
		if req < size {
			if out == nil {
				out = map[int]int{}
			}
			out[size] = req
		}
	}
	return out
}

// caseName is "decrypt 4096 B at offset 1" and the like.
func caseName(c protocol.VerifyCase) string {
	s := fmt.Sprintf("%s %d B", c.Op, c.Size)
	if c.Padded {
		s += " padded"
	}
	if c.Offset > 0 {
		s += fmt.Sprintf(" at offset %d", c.Offset)
	}
	switch {
	case c.Chain:
		s += " in two requests (output IV chained)"
	case c.Via != "":
		s += " in one request through " + c.Via
	case c.Request > 0 && c.Request < c.Size:
		s += fmt.Sprintf(" in requests of %d B", c.Request)
	}
	return s
}

// compare says how the case's output differs from want, "" when it does not.
func compare(c protocol.VerifyCase, want []byte) string {
	if c.Err != "" {
		return "the path failed: " + c.Err
	}
	if c.OutLen != len(want) {
		return fmt.Sprintf("%d bytes of output, want %d", c.OutLen, len(want))
	}
	if len(c.Chunks) == 0 {
		got, err := hex.DecodeString(c.Out)
		if err != nil || len(got) != len(want) {
			return "the output is not the hex of its length"
		}
		for i := range got {
			if got[i] != want[i] {
				return fmt.Sprintf("first differing byte %d: 0x%02x, want 0x%02x", i, got[i], want[i])
			}
		}
		return ""
	}
	for i, d := range c.Chunks {
		lo := i * protocol.VerifyChunkBytes
		hi := min(lo+protocol.VerifyChunkBytes, len(want))
		sum := sha256.Sum256(want[lo:hi])
		if d != hex.EncodeToString(sum[:8]) {
			return fmt.Sprintf("first difference in bytes %d–%d", lo, hi-1)
		}
	}
	return ""
}

// judgeConcurrency says what went wrong with the path under parallel workers, "" when nothing did.
func judgeConcurrency(alg string, c protocol.VerifyConcurrency) string {
	name := fmt.Sprintf("concurrency (%d workers, %g s)", c.Workers, c.Seconds)
	var problems []string
	if c.TimedOut {
		problems = append(problems, "hung: a worker did not come back")
	}
	if len(c.Errors) > 0 {
		problems = append(problems, "errors: "+strings.Join(c.Errors, "; "))
	}
	if len(c.Outputs) > 0 {
		// the workers' input is padded as the agent's encArgv pads it: a size that does not fill whole blocks
		spec, isCipher := protocol.VerifyCiphers[alg]
		padded := isCipher && spec.Block > 1 && c.Size%spec.Block != 0
		want, err := Expected(alg, protocol.VerifyCase{Op: c.Op, Size: c.Size, Padded: padded})
		if err != nil {
			return ""
		}
		sum := sha256.Sum256(want)
		good := hex.EncodeToString(sum[:])
		bad := 0
		for d, n := range c.Outputs {
			if d != good {
				bad += n
			}
		}
		if bad > 0 {
			problems = append(problems, fmt.Sprintf("%d of %d outputs of %s %d B wrong", bad, c.Ops, c.Op, c.Size))
		}
	} else if c.Ops == 0 && len(problems) == 0 {
		problems = append(problems, "no operation completed")
	}
	if len(problems) == 0 {
		return ""
	}
	sort.Strings(problems)
	return name + ": " + strings.Join(problems, "; ")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
