package agent

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// OpenSSL before 3.0 has an interactive mode: `openssl` without a command reads commands from stdin, one a line,
// printing "OpenSSL> " before each, and runs each in the same process (apps/openssl.c, 0.9.8 to 1.1.1; 3.0
// dropped it, and `openssl` alone prints its help). On a board where an openssl start is the verification's
// floor (0.15 – 0.7 s emulated, more on an old ARMv5), one process runs every `openssl enc` of a path.
//
// Each command still runs alone: its own -in and -out files, a fresh key and IV, its own final call. What ties
// an answer to its input is a marker after each command, an unknown command name of its own
// (fleet-verify-done-N): 1.1.1 and 1.0.2 both name it on stderr ("Invalid command 'fleet-verify-done-3'…",
// "openssl:Error: 'fleet-verify-done-3' is an invalid command.") and end with "error in fleet-verify-done-3",
// so stderr splits into one section per command however the versions word the rest, and a failed command's
// own "error in enc" is in its section only. A batch that hangs or dies leaves the inputs after its last
// marker: the one it was running fails (hung at the path's deadline, or died, with the process's end), and the
// rest run in a fresh batch, or are skipped past the deadline, each named.

// batchMarker is the marker command after command i.
func batchMarker(i int) string { return "fleet-verify-done-" + strconv.Itoa(i) }

// batchable reports whether argvs can go through the interactive mode: each argument is one word its line
// parser keeps whole (1.0.2 splits on white space and knows no quotes), and each line fits its 1024-byte buffer.
func batchable(argvs [][]string) bool {
	for _, argv := range argvs {
		n := 0
		for _, a := range argv[1:] {
			if a == "" || strings.ContainsAny(a, " \t\r\n\"'\\#") {
				return false
			}
			n += len(a) + 1
		}
		if n > 1000 {
			return false
		}
	}
	return true
}

// runBatches is runAndRead through the interactive mode: argvs split into o.workers batches, one openssl each,
// run at once. ok is false when the openssl did not take the batch (no prompt, no marker: not an interactive
// openssl); then nothing is judged from it and the caller runs every command on its own.
func (o *opensslVerifier) runBatches(ctx context.Context, argvs [][]string, outs []string, maxOut []int) ([]childResult, [][]byte, []error, bool) {
	results := make([]childResult, len(argvs))
	read := make([][]byte, len(argvs))
	readErrs := make([]error, len(argvs))
	n := max(1, min(o.workers, len(argvs)))
	per := (len(argvs) + n - 1) / n
	var mu sync.Mutex
	refused := false
	var wg sync.WaitGroup
	for lo := 0; lo < len(argvs); lo += per {
		hi := min(lo+per, len(argvs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !o.runBatch(ctx, argvs[lo:hi], results[lo:hi]) {
				mu.Lock()
				refused = true
				mu.Unlock()
				return
			}
			for i := lo; i < hi; i++ {
				if outs != nil && results[i].Err == nil && results[i].Exit == 0 {
					read[i], readErrs[i] = o.host.readFile(outs[i], maxOut[i])
				}
			}
		}()
	}
	wg.Wait()
	return results, read, readErrs, !refused
}

// runBatch runs argvs in one interactive openssl, and again from the first input it did not answer, until each
// has its result; false when the first process took none of them and printed no prompt.
func (o *opensslVerifier) runBatch(ctx context.Context, argvs [][]string, results []childResult) bool {
	for first, start := true, 0; start < len(argvs); first = false {
		var in strings.Builder
		for i := start; i < len(argvs); i++ {
			in.WriteString(strings.Join(argvs[i][1:], " ") + "\n" + batchMarker(i) + "\n")
		}
		in.WriteString("quit\n")
		res := o.run(ctx, []string{o.argv0}, in.String())
		sections := batchSections(res.Stderr, start, len(argvs))
		if first && len(sections) == 0 && !strings.Contains(res.Stdout, "OpenSSL> ") {
			return false
		}
		for k, sec := range sections {
			i := start + k
			results[i] = childResult{Argv: argvs[i], Env: o.env, Stderr: sec}
			if strings.Contains(sec, "error in "+argvs[i][1]+"\n") {
				results[i].Exit = 1
			}
		}
		start += len(sections)
		if start == len(argvs) {
			break
		}
		// the process ended before answering argvs[start]: that input is what it was running
		why := res.Err
		if why == nil {
			why = fmt.Errorf("openssl ended (exit %d) while running this input in a batch: %s",
				res.Exit, firstErrorLine(res.Stderr))
		} else if !isVerifyTimeout(why) {
			why = fmt.Errorf("openssl ended while running this input in a batch: %w", why)
		}
		results[start] = childResult{Argv: argvs[start], Env: o.env, Exit: -1, Err: why}
		start++
		for i := start; i < len(argvs) && o.deadline.expired(); i++ {
			results[i] = childResult{Argv: argvs[i], Env: o.env, Exit: -1, Err: o.deadline.skipped()}
			start++
		}
	}
	return true
}

// batchSections splits a batch's stderr at its markers: the section of each command from start on that has
// its marker, in order, up to the first marker missing.
func batchSections(stderr string, start, end int) []string {
	var out []string
	rest := stderr
	for i := start; i < end; i++ {
		name := "'" + batchMarker(i) + "'"
		at := strings.Index(rest, name)
		if at < 0 {
			break
		}
		sec := rest[:strings.LastIndexByte(rest[:at], '\n')+1]
		rest = rest[at:]
		// the marker's own lines end with "error in MARKER"; without it, at the end of the line naming it
		if e := strings.Index(rest, "error in "+batchMarker(i)+"\n"); e >= 0 {
			rest = rest[e+len("error in "+batchMarker(i)+"\n"):]
		} else if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		} else {
			rest = ""
		}
		out = append(out, sec)
	}
	return out
}
