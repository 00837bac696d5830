package fleet

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/fleetlab/fleet/agent"
)

// The verification's files on a shell-path board: inputs written, outputs read back, all in the session's
// private directory (shellscript.go), as base64 that the board's openssl decodes and encodes.

// sessionDirRE is the private directory the prelude makes: /tmp/fleet-sh.PID.NONCE8.
var sessionDirRE = regexp.MustCompile(`^/tmp/fleet-sh\.[0-9]+\.[0-9a-f]{8}$`)

// fileNameRE is a name a request may give a file of the directory; err and stdin are the session's own.
var fileNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// Dir is the session's private directory on the board (agent.Remote), "" when the prelude named none.
func (s *shellSession) Dir() string { return s.dir }

// boardFile checks that path is a file of the session's directory, which no request may write or read outside.
func (s *shellSession) boardFile(path string) error {
	name, ok := strings.CutPrefix(path, s.dir+"/")
	if s.dir == "" || !ok || !fileNameRE.MatchString(name) || name == "err" || name == "stdin" {
		return fmt.Errorf("shell path on %s: %q is not a file of the session's directory %s", s.board, path, s.dir)
	}
	return nil
}

// fileTimeout bounds a request that only moves files: far above what 64 KiB of base64 takes on any board.
const fileTimeout = 60 * time.Second

// WriteFile writes data to path on the board (agent.Remote).
func (s *shellSession) WriteFile(ctx context.Context, path string, data []byte) error {
	if err := s.boardFile(path); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, fileTimeout)
	defer cancel()
	recs, err := s.request(ctx, writeFileScript(path, data))
	if err != nil {
		return err
	}
	r := s.run(recs)
	switch {
	case r.Err != nil:
		return r.Err
	case r.Exit != 0:
		return fmt.Errorf("shell path on %s: openssl base64 -d -out %s: %w", s.board, path, boardFailure(r.Exit, r.Stdout+r.Stderr))
	}
	return nil
}

// boardFailure is why a verification command exited non-zero on the board, from its output (stderr in stdout,
// shellscript.go): syscall.ENOSPC when it says the disk is full (OpenSSL 3 prints the errno of a failed write,
// "No space left on device"), so that the agent tells a full /tmp from a wrong path; else its output.
func boardFailure(exit int, out string) error {
	out, df, _ := strings.Cut(out, "\n"+dfMarker+"\n")
	out = strings.TrimSpace(out)
	switch {
	case strings.Contains(strings.ToLower(out), "no space left on device"):
		return fmt.Errorf("exit %d: %w", exit, syscall.ENOSPC)
	case diskFull(df) && out == "":
		return fmt.Errorf("exit %d: no output, and no space is left there: %w", exit, syscall.ENOSPC)
	case diskFull(df):
		return fmt.Errorf("exit %d: %s, and no space is left there: %w", exit, truncate(out, 200), syscall.ENOSPC)
	case out == "":
		return fmt.Errorf("exit %d: no output", exit)
	}
	return fmt.Errorf("exit %d: %s", exit, truncate(out, 200))
}

// dfMarker comes before what df says of the session's directory after a write failed (writeFileLines).
const dfMarker = "fleet-df"

// diskFull reads `df -P -k` (POSIX: a header, then "filesystem blocks used available capacity mount"): true when
// nothing is available where the session writes. A write that failed for want of space leaves it at 0, the
// blocks reserved for root left out; anything else (no df, another layout) says nothing.
func diskFull(df string) bool {
	lines := strings.Split(strings.TrimSpace(df), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "Filesystem") {
		return false
	}
	f := strings.Fields(lines[1])
	return len(f) >= 6 && f[3] == "0"
}

// execKillMargin is how much longer than the board's kill of a command (RemoteExec.TimeoutS) the controller
// waits for the request's answer: as watchdogSeconds leaves, so that the kill's exit arrives and the session,
// which a request given up on loses, goes on to the next command.
const execKillMargin = 10 * time.Second

// Exec runs one verification command on the board with its files (agent.Remote).
func (s *shellSession) Exec(ctx context.Context, e agent.RemoteExec) (agent.RemoteRun, map[string][]byte) {
	fail := func(err error) (agent.RemoteRun, map[string][]byte) { return agent.RemoteRun{Exit: -1, Err: err}, nil }
	for _, p := range append(append([]string{}, e.Remove...), e.Read...) {
		if err := s.boardFile(p); err != nil {
			return fail(err)
		}
	}
	var kill int
	switch {
	case len(e.Argv) == 0:
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, fileTimeout)
		defer cancel()
	case e.TimeoutS > 0:
		kill = int(math.Ceil(min(e.TimeoutS, 3600)))
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(kill)*time.Second+execKillMargin)
		defer cancel()
	}
	if kill == 0 {
		left := 0.0
		if d, ok := ctx.Deadline(); ok {
			left = time.Until(d).Seconds()
		}
		kill = watchdogSeconds(left)
	}
	recs, err := s.request(ctx, execScript(e, kill))
	if err != nil {
		return fail(err)
	}
	r := agent.RemoteRun{}
	if len(e.Argv) > 0 {
		// the stdin's write is a command of its own before the command's: its R to E first
		if e.Stdin != nil {
			i := 0
			for i < len(recs) && recs[i].kind != recStderr {
				i++
			}
			if w := s.run(recs[:min(i+1, len(recs))]); w.Err != nil {
				return fail(w.Err)
			} else if w.Exit != 0 {
				return fail(fmt.Errorf("shell path on %s: write the command's stdin to %s/stdin: %w", s.board, s.dir, boardFailure(w.Exit, w.Stdout)))
			}
			recs = recs[min(i+1, len(recs)):]
		}
		r = s.run(recs)
		if r.Err != nil {
			return r, nil
		}
		r.Stderr = r.Stdout // what the command printed on both (execScript)
	}
	files, err := readBackFiles(recs, e.Read)
	if err != nil {
		r.Err = fmt.Errorf("shell path on %s: %w", s.board, err)
		return r, nil
	}
	return r, files
}

// readBackFiles are the B records of a request: each file asked for that the board read back, decoded.
func readBackFiles(recs []shellRecord, asked []string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, rec := range recs {
		switch {
		case rec.kind == recValue && rec.arg == "b64":
			return nil, fmt.Errorf("openssl base64 -in %s failed on the board", truncate(string(rec.content), 200))
		case rec.kind != recBase64:
			continue
		}
		ok := false
		for _, a := range asked {
			ok = ok || a == rec.arg
		}
		if !ok {
			return nil, fmt.Errorf("%w: a file %q that was not asked for", errFrame, truncate(rec.arg, 80))
		}
		b, err := decodeBase64Lines(rec.content)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errFrame, rec.arg, err)
		}
		files[rec.arg] = b
	}
	return files, nil
}

// decodeBase64Lines decodes what `openssl base64` prints: standard base64 in lines, padded.
func decodeBase64Lines(b []byte) ([]byte, error) {
	s := strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, string(bytes.TrimSpace(b)))
	return base64.StdEncoding.Strict().DecodeString(s)
}
