package agent

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// The concurrency check on a remote board (the shell path): the board runs the workers' loops itself, in one
// request (LoopsRemote), because a Remote runs one command at a time and the controller's goroutines would only
// take turns. What comes back is each run's output line; this code makes the same VerifyConcurrency of them as
// concurrency makes of the agent's own workers, and the controller judges it against its Go crypto.

// remoteLoopBytes bounds what the workers' output lines may take in the session's output, all workers together:
// half of what one request may send (fleet's shell framing allows 8 MiB), at the longest line a run prints (a
// sha512 dgst line with the session directory's path is under 200 bytes).
const (
	remoteLoopBytes    = 4 << 20
	remoteLoopLineSize = 200
	remoteLoopMaxRuns  = 4096
)

// remoteConcurrency runs the concurrency check on the board behind lr: workers loops of the size-byte input in,
// through the path, for d.
func (o *opensslVerifier) remoteConcurrency(ctx context.Context, lr LoopsRemote, spec protocol.VerifyCipherSpec, digest bool, workers int,
	d time.Duration, size int, in string) *protocol.VerifyConcurrency {
	// the workers' board-side kill after the check: what is left of the path's deadline then (a verifier
	// without one: the whole of verifyPathTimeout)
	after := verifyPathTimeout.Seconds()
	if o.deadline != nil {
		after = math.Ceil(max(1, (o.deadline.left() - d).Seconds()))
	}
	l := RemoteLoops{Env: o.env, Workers: workers, Seconds: d.Seconds(), TimeoutS: after,
		MaxRuns: min(remoteLoopMaxRuns, max(16, remoteLoopBytes/(workers*remoteLoopLineSize)))}
	if digest {
		l.Argv = append([]string{o.argv0, "dgst", "-" + o.alg}, append(o.opts, in)...)
	} else {
		l.Out = filepath.Join(o.dir, "conc")
		l.Argv = o.encArgv(spec, in, l.Out, false, size%spec.Block != 0)
	}
	run := lr.Loops(ctx, l)
	return remoteConcurrencyReport(run, l, digest, size, in)
}

// remoteConcurrencyReport is the VerifyConcurrency of a remote check's runs: every output by the SHA-256 of the
// output (a digest's bytes hashed here; an enc output's hash as the board's openssl printed it), each failed,
// unreadable or hung worker an error.
func remoteConcurrencyReport(run RemoteLoopsRun, l RemoteLoops, digest bool, size int, in string) *protocol.VerifyConcurrency {
	c := &protocol.VerifyConcurrency{Workers: l.Workers, Seconds: math.Ceil(l.Seconds), Size: size, Op: "encrypt"}
	if run.Seconds > 0 {
		c.Seconds = run.Seconds
	}
	if digest {
		c.Op = "digest"
	}
	if run.Err != nil {
		c.Errors = append(c.Errors, run.Err.Error())
		return c
	}
	c.TimedOut = run.TimedOut
	c.Outputs = map[string]int{}
	other := 0
	add := func(sum string) {
		if _, ok := c.Outputs[sum]; !ok && len(c.Outputs) >= 8 {
			other++
		} else {
			c.Outputs[sum]++
		}
		c.Ops++
	}
	for w, wr := range run.Workers {
		for i, line := range wr.Outputs {
			sum, ok := "", false
			if digest {
				var b []byte
				if b, ok = parseDgstOutput(line)[in]; ok {
					sum = sha256Hex(b)
				}
			} else {
				sum, ok = dgstSHA256Line(line)
			}
			if !ok {
				c.Errors = append(c.Errors, fmt.Sprintf("worker %d: run %d printed %q, no output digest", w, i+1, truncateLine(line)))
				break
			}
			add(sum)
		}
		switch {
		case wr.Hung:
			c.TimedOut = true
			c.Errors = append(c.Errors, fmt.Sprintf("worker %d: openssl did not end within %g s of the check's end (killed)", w, l.TimeoutS))
		case wr.Exit != 0:
			c.Errors = append(c.Errors, fmt.Sprintf("worker %d: exit %d: %s", w, wr.Exit, firstErrorLine(wr.Stderr)))
		case wr.Hash != 0:
			c.Errors = append(c.Errors, fmt.Sprintf("worker %d: the board's openssl dgst -sha256 of the output: exit %d: %s", w, wr.Hash, firstErrorLine(wr.Stderr)))
		}
	}
	if len(run.Workers) != l.Workers {
		c.Errors = append(c.Errors, fmt.Sprintf("%d of %d workers reported", len(run.Workers), l.Workers))
	}
	if other > 0 {
		c.Errors = append(c.Errors, "more than 8 distinct outputs of one input")
	}
	if c.TimedOut && !strings.Contains(strings.Join(c.Errors, "\n"), "did not end") {
		c.Errors = append(c.Errors, fmt.Sprintf("the check did not end within %g s", c.Seconds+l.TimeoutS))
	}
	if len(c.Errors) > 4 {
		c.Errors = c.Errors[:4]
	}
	return c
}

// dgstSHA256Line is the hex SHA-256 of a line of `openssl dgst -sha256 -r FILE` ("HEX *FILE"), lower case.
func dgstSHA256Line(line string) (string, bool) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", false
	}
	b, err := hex.DecodeString(f[0])
	if err != nil || len(b) != 32 {
		return "", false
	}
	return hex.EncodeToString(b), true
}

func truncateLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
