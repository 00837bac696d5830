package fleet

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/fleetlab/fleet/agent"
)

// shellSession is the one SSH session of a board measured through its shell: `sh -s` reading requests on stdin,
// their records read back from stdout. It implements agent.Remote, so that the agent's own sweep logic drives it.
type shellSession struct {
	board  string
	nonce  string
	stdin  io.WriteCloser
	stdout *io.PipeReader
	recs   chan recordOrErr
	runErr chan error
	stderr *tailWriter
	mirror string // local directory of the boards' mirrored files, one subdirectory per sample
	dir    string // the session's private directory on the board (shellfiles.go)

	mu     sync.Mutex
	broken error // set once the framing is lost (a deadline, a bad record): every later request fails with it
	seq    int
}

var _ agent.Remote = (*shellSession)(nil)

type recordOrErr struct {
	rec shellRecord
	err error
}

// startShell starts `sh -s` on the board and sends the prelude.
func startShell(ctx context.Context, t Transport, board string) (*shellSession, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("shell path on %s: nonce: %w", board, err)
	}
	mirror, err := newShellMirror()
	if err != nil {
		return nil, fmt.Errorf("shell path on %s: %w", board, err)
	}
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	s := &shellSession{board: board, nonce: hex.EncodeToString(raw[:]), stdin: stdinW, stdout: stdoutR,
		recs: make(chan recordOrErr, 64), runErr: make(chan error, 1), stderr: &tailWriter{Max: 4096}, mirror: mirror}
	go func() {
		err := t.Run(ctx, Command{Args: []string{"sh", "-s"}, Stdin: stdinR, Stdout: stdoutW, Stderr: dropNUL{s.stderr}})
		stdoutW.CloseWithError(io.EOF)
		stdinR.CloseWithError(io.ErrClosedPipe)
		s.runErr <- err
	}()
	go func() {
		fr := newFrameReader(stdoutR, s.nonce)
		for {
			rec, err := fr.next()
			s.recs <- recordOrErr{rec, err}
			if err != nil {
				close(s.recs)
				io.Copy(io.Discard, stdoutR) // let the session end
				return
			}
		}
	}()
	recs, err := s.request(ctx, preludeScript(s.nonce))
	if err != nil {
		s.close()
		return nil, err
	}
	for _, r := range recs {
		if r.kind == recValue && r.arg == "error" {
			s.close()
			return nil, fmt.Errorf("shell path on %s: %s", board, truncate(string(r.content), 200))
		}
		if r.kind == recValue && r.arg == "dir" && sessionDirRE.Match(r.content) {
			s.dir = string(r.content)
		}
	}
	return s, nil
}

// dropNUL passes on what the session prints on its stderr without the NUL bytes of its watchdogs, which write
// one each second to learn whether the controller is still there (shellscript.go).
type dropNUL struct{ w io.Writer }

func (d dropNUL) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, 0) < 0 {
		return d.w.Write(p)
	}
	if _, err := d.w.Write(bytes.ReplaceAll(p, []byte{0}, nil)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// request sends one request and returns its records up to its Q marker.
func (s *shellSession) request(ctx context.Context, script string) ([]shellRecord, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.broken != nil {
		return nil, s.broken
	}
	fail := func(err error) ([]shellRecord, error) {
		s.broken = err
		return nil, err
	}
	written := make(chan error, 1)
	go func() { _, err := io.WriteString(s.stdin, script); written <- err }()
	var recs []shellRecord
	for {
		select {
		case <-ctx.Done():
			return fail(fmt.Errorf("shell path on %s: %w", s.board, ctx.Err()))
		case err := <-written:
			if err != nil {
				return fail(fmt.Errorf("shell path on %s: send: %w", s.board, s.sessionErr(err)))
			}
			written = nil
		case r, ok := <-s.recs:
			if !ok || r.err != nil {
				err := io.ErrUnexpectedEOF
				if ok && !errors.Is(r.err, io.EOF) {
					err = r.err
				}
				return fail(fmt.Errorf("shell path on %s: %w", s.board, s.sessionErr(err)))
			}
			if r.rec.kind == recDone {
				return recs, nil
			}
			recs = append(recs, r.rec)
		}
	}
}

// sessionErr prefers the session's own end (its exit status and stderr) to a pipe's error, when it has ended.
func (s *shellSession) sessionErr(err error) error {
	select {
	case rerr := <-s.runErr:
		s.runErr <- rerr
		if rerr != nil {
			return withStderr(rerr, s.stderr.String())
		}
		return fmt.Errorf("the shell exited: %w", err)
	case <-time.After(2 * time.Second):
		return err
	}
}

// close ends the session: EOF on stdin ends sh, whose EXIT trap removes its /tmp directory.
func (s *shellSession) close() error {
	s.stdin.Close()
	var err error
	select {
	case err = <-s.runErr:
		s.runErr <- err
	case <-time.After(30 * time.Second):
		s.stdout.CloseWithError(io.EOF)
		err = <-s.runErr
		s.runErr <- err
	}
	os.RemoveAll(s.mirror)
	if err != nil {
		return withStderr(err, s.stderr.String())
	}
	return nil
}

// Measure runs one command on the board with a sample around it (agent.Remote).
func (s *shellSession) Measure(ctx context.Context, argv, env []string) agent.RemoteRun {
	left := 0.0
	if d, ok := ctx.Deadline(); ok {
		left = time.Until(d).Seconds()
	}
	recs, err := s.request(ctx, pointScript(env, argv, watchdogSeconds(left)))
	if err != nil {
		return agent.RemoteRun{Exit: -1, Err: err}
	}
	return s.run(recs)
}

// run reads one command's records: its stdout, exit, stderr, wall time, child CPU and the samples around it.
func (s *shellSession) run(recs []shellRecord) agent.RemoteRun {
	r := agent.RemoteRun{Exit: -1}
	var samples []sampleRecs
	var started, ended time.Time
	for i := 0; i < len(recs); i++ {
		rec := recs[i]
		switch rec.kind {
		case recSample:
			j := i + 1
			for j < len(recs) && recs[j].kind != recSampled {
				j++
			}
			samples = append(samples, sampleRecs{which: rec.arg, recs: recs[i+1 : j]})
			i = j
		case recRun:
			started = rec.at
			r.Stdout = string(rec.content)
		case recExit:
			ended = rec.at
			r.Exit, _ = strconv.Atoi(rec.arg) // checked by the frame reader
		case recStderr:
			r.Stderr = string(rec.content)
		}
	}
	if started.IsZero() || ended.IsZero() {
		r.Err = fmt.Errorf("shell path on %s: the command's start or exit is missing from its output", s.board)
		return r
	}
	r.WallS = ended.Sub(started).Seconds()
	var before, after *shellTimes
	for _, smp := range samples {
		rs, tm := s.sample(smp.recs)
		switch smp.which {
		case "b":
			r.Before, before = rs, tm
		case "a":
			r.After, after = rs, tm
		}
	}
	if before != nil && after != nil {
		r.UserS = max(after.kidsUser-before.kidsUser, 0)
		r.SysS = max(after.kidsSys-before.kidsSys, 0)
	}
	return r
}

type sampleRecs struct {
	which string
	recs  []shellRecord
}

// sample writes one sample's files into a fresh mirror directory and reads its times.
func (s *shellSession) sample(recs []shellRecord) (agent.RemoteSample, *shellTimes) {
	s.seq++
	root := filepath.Join(s.mirror, strconv.Itoa(s.seq))
	rs := agent.RemoteSample{Root: root}
	var tm *shellTimes
	for _, rec := range recs {
		switch rec.kind {
		case recTimes:
			if t, err := parseTimes(string(rec.content)); err == nil {
				tm = &t
				rs.OwnS, rs.OwnOK = t.total(), true
			}
		case recFile, recValue:
			writeMirror(root, rec.arg, rec.content)
		}
	}
	os.MkdirAll(root, 0o700) // an empty sample is still a root: every file unknown
	// the mirror is read once per sample: the oldest are not needed any more
	if s.seq > 8 {
		os.RemoveAll(filepath.Join(s.mirror, strconv.Itoa(s.seq-8)))
	}
	return rs, tm
}

// mirrorPathRE is every path of the board the mirror takes: the files the probe and the evidence read, and
// nothing that could leave the mirror directory.
var mirrorPathRE = regexp.MustCompile(`^/(proc/(stat|loadavg|vmstat|interrupts|cpuinfo|crypto|meminfo)|etc/os-release|usr/lib/os-release|` +
	`sys/devices/system/cpu/(offline|(cpufreq/policy[0-9]+|cpu[0-9]+/cpufreq)/([a-z_]+|stats/time_in_state))|` +
	`sys/class/thermal/thermal_zone[0-9]+/[a-z0-9_]+|sys/class/hwmon/hwmon[0-9]+/[a-z0-9_]+)$`)

// writeMirror writes one board file under root, if its path is one the mirror takes.
func writeMirror(root, path string, content []byte) bool {
	if !mirrorPathRE.MatchString(path) {
		return false
	}
	p := filepath.Join(root, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return false
	}
	if len(content) > 0 && content[len(content)-1] != '\n' {
		content = append(content, '\n') // as the kernel prints it: the read builtin dropped the newline
	}
	return os.WriteFile(p, content, 0o600) == nil
}
