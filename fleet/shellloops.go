package fleet

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/agent"
)

// The verification's concurrency check on a shell-path board (agent.LoopsRemote): one request starts the workers
// as background jobs of the session's shell, each a loop of the board's openssl on the same input, and waits for
// them under the prelude's watchdog. Everything stays in the session's private directory, as files named cwW.*
// for worker W:
//
//	go       exists while the loops may start new runs; removed after the check's seconds
//	cwW.o    the output file of the run in flight (enc: -out), hashed by `openssl dgst -sha256 -r` after each run
//	cwW.out  one line per run: that hash, or dgst's own stdout
//	cwW.pid  the pid of the openssl in flight, empty between runs: what is left in it after the watchdog fired is
//	         a hang, and is killed
//	cwW.rc   how the loop ended: 0 (its time was up), the exit status of the run that failed, or "hash N"
//	cwW.err  the stderr of the last run
//
// The loops are subshells, so the session's shell stays free to wait; the one job the watchdog waits for is the
// subshell that starts them, sleeps the check's seconds (whole ones: sleep takes no fraction everywhere), removes
// go and waits for them. No date, no time applet: the workers look at a file between runs.

var _ agent.LoopsRemote = (*shellSession)(nil)

// loopsScript is the request of one concurrency check.
func loopsScript(l agent.RemoteLoops, seconds, timeoutS int) string {
	var b strings.Builder
	// the worker's command: env assignments, every word quoted, the Out file its own
	cmd := func(argv []string) string {
		var c strings.Builder
		for _, kv := range l.Env {
			k, v, _ := strings.Cut(kv, "=")
			c.WriteString(k + "=" + shellQuote(v) + " ")
		}
		for i, a := range argv {
			if i > 0 {
				c.WriteString(" ")
			}
			switch {
			case a == "$fleet_o":
				c.WriteString(`"$fleet_o"`)
			case l.Out != "" && a == l.Out:
				c.WriteString(`"$fleet_d/cw$1.o"`)
			default:
				c.WriteString(shellQuote(a))
			}
		}
		return c.String()
	}
	maxRuns := l.MaxRuns
	if maxRuns <= 0 {
		maxRuns = math.MaxInt32
	}
	b.WriteString("fleet_cw() {\n\tfleet_k=0\n")
	fmt.Fprintf(&b, "\twhile [ -e \"$fleet_d/go\" ] && [ $fleet_k -lt %d ]; do\n", maxRuns)
	if l.Out != "" {
		b.WriteString("\t\t: >\"$fleet_d/cw$1.o\"\n") // a run that writes nothing must not hand on the last output
		b.WriteString("\t\t" + cmd(l.Argv) + " </dev/null >/dev/null 2>\"$fleet_d/cw$1.err\" &\n")
	} else {
		b.WriteString("\t\t" + cmd(l.Argv) + " </dev/null >>\"$fleet_d/cw$1.out\" 2>\"$fleet_d/cw$1.err\" &\n")
	}
	b.WriteString("\t\tprintf '%s' $! >\"$fleet_d/cw$1.pid\"\n")
	b.WriteString("\t\twait $!\n\t\tfleet_rc=$?\n")
	b.WriteString("\t\t: >\"$fleet_d/cw$1.pid\"\n")
	b.WriteString("\t\tif [ $fleet_rc -ne 0 ]; then printf '%s' $fleet_rc >\"$fleet_d/cw$1.rc\"; return; fi\n")
	if l.Out != "" {
		hash := cmd([]string{"$fleet_o", "dgst", "-sha256", "-r"}) + ` "$fleet_d/cw$1.o"`
		b.WriteString("\t\tif ! " + hash + " </dev/null >>\"$fleet_d/cw$1.out\" 2>\"$fleet_d/cw$1.err\"; then\n")
		b.WriteString("\t\t\tprintf 'hash %s' $? >\"$fleet_d/cw$1.rc\"; return\n\t\tfi\n")
	}
	b.WriteString("\t\tfleet_k=$((fleet_k + 1))\n\tdone\n\tprintf 0 >\"$fleet_d/cw$1.rc\"\n}\n")

	// the files of an earlier check, and go, made anew
	b.WriteString("rm -f \"$fleet_d\"/cw*\n: >\"$fleet_d/go\"\n")
	b.WriteString("fleet_m R\n")
	fmt.Fprintf(&b, "( fleet_i=0\n  while [ $fleet_i -lt %d ]; do : >\"$fleet_d/cw$fleet_i.pid\"; fleet_cw $fleet_i & fleet_i=$((fleet_i + 1)); done\n", l.Workers)
	fmt.Fprintf(&b, "  sleep %d\n  rm -f \"$fleet_d/go\"\n  wait ) </dev/null >/dev/null 2>\"$fleet_d/err\" &\n", seconds)
	fmt.Fprintf(&b, "fleet_w %d\n", max(seconds+timeoutS, 1))
	b.WriteString("rm -f \"$fleet_d/go\"\n")
	// what each worker left, then the kill of what still runs
	fmt.Fprintf(&b, "fleet_i=0\nwhile [ $fleet_i -lt %d ]; do\n", l.Workers)
	b.WriteString("\tfleet_m W $fleet_i\n")
	b.WriteString("\tfleet_v \"$fleet_d/cw$fleet_i.pid\" \"$fleet_d/cw$fleet_i.rc\"\n")
	b.WriteString("\tfleet_f \"$fleet_d/cw$fleet_i.out\" \"$fleet_d/cw$fleet_i.err\"\n")
	b.WriteString("\tfleet_l=\n\t{ IFS= read -r fleet_l <\"$fleet_d/cw$fleet_i.pid\"; } 2>/dev/null\n")
	b.WriteString("\t[ -n \"$fleet_l\" ] && kill -9 \"$fleet_l\" 2>/dev/null\n")
	b.WriteString("\tfleet_i=$((fleet_i + 1))\ndone\n")
	b.WriteString("rm -f \"$fleet_d\"/cw*.o \"$fleet_d\"/cw*.out\n")
	b.WriteString("fleet_m Q\n")
	return b.String()
}

// loopsMargin is how much longer than the board's own bound the controller waits for a check's records.
const loopsMargin = 30 * time.Second

// Loops runs the verification's concurrency check on the board (agent.LoopsRemote).
func (s *shellSession) Loops(ctx context.Context, l agent.RemoteLoops) agent.RemoteLoopsRun {
	fail := func(err error) agent.RemoteLoopsRun { return agent.RemoteLoopsRun{Err: err} }
	if l.Workers < 1 || l.Workers > 4096 {
		return fail(fmt.Errorf("shell path on %s: %d workers", s.board, l.Workers))
	}
	if l.Out != "" {
		if err := s.boardFile(l.Out); err != nil {
			return fail(err)
		}
	}
	seconds := max(int(math.Ceil(l.Seconds)), 1)
	timeoutS := max(int(math.Ceil(l.TimeoutS)), 1)
	if d, ok := ctx.Deadline(); ok {
		// the board's bound inside the controller's, as for every command
		if left := watchdogSeconds(time.Until(d).Seconds()); seconds+timeoutS > left {
			timeoutS = max(left-seconds, 1)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds+timeoutS)*time.Second+loopsMargin)
	defer cancel()
	recs, err := s.request(ctx, loopsScript(l, seconds, timeoutS))
	if err != nil {
		return fail(err)
	}
	return s.loopsRun(recs, l.Workers, seconds)
}

// loopsRun reads a check's records: the watchdog's exit (non-zero: it killed the starter, the check hung), then
// one W record per worker with its files.
func (s *shellSession) loopsRun(recs []shellRecord, workers, seconds int) agent.RemoteLoopsRun {
	run := agent.RemoteLoopsRun{Seconds: float64(seconds)}
	exited := false
	var cur *agent.RemoteWorker
	for _, r := range recs {
		switch {
		case r.kind == recExit:
			exited = true
			run.TimedOut = r.arg != "0"
		case r.kind == recWorker:
			n, err := strconv.Atoi(r.arg)
			if err != nil || n != len(run.Workers) || n >= workers {
				return agent.RemoteLoopsRun{Err: fmt.Errorf("%w: worker %q out of order", errFrame, truncate(r.arg, 20))}
			}
			run.Workers = append(run.Workers, agent.RemoteWorker{})
			cur = &run.Workers[n]
		case cur == nil:
		case (r.kind == recValue || r.kind == recFile) && strings.HasPrefix(r.arg, s.dir+"/cw"):
			file := strings.TrimPrefix(r.arg[len(s.dir)+1:], "cw"+strconv.Itoa(len(run.Workers)-1))
			v := strings.TrimSpace(string(r.content))
			switch file {
			case ".pid":
				cur.Hung = v != ""
			case ".rc":
				hash, isHash := strings.CutPrefix(v, "hash ")
				n, err := strconv.Atoi(strings.TrimSpace(hash))
				if err != nil {
					return agent.RemoteLoopsRun{Err: fmt.Errorf("%w: worker exit %q", errFrame, truncate(v, 20))}
				}
				if isHash {
					cur.Hash = max(n, 1)
				} else {
					cur.Exit = n
				}
			case ".out":
				// a lone CR ends a line too: no output line carries one into the judge
				cur.Outputs = append(cur.Outputs, strings.FieldsFunc(string(r.content), func(c rune) bool { return c == '\n' || c == '\r' })...)
			case ".err":
				cur.Stderr = string(r.content)
			}
		}
	}
	if !exited {
		return agent.RemoteLoopsRun{Err: fmt.Errorf("shell path on %s: the concurrency check's exit is missing from its output", s.board)}
	}
	for i := range run.Workers {
		if run.Workers[i].Hung {
			// killed: whatever exit the loop wrote is the kill's, and the hang says it
			run.Workers[i].Exit = 0
		}
	}
	return run
}
