package agent

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// countingOpenSSL wraps the fake openssl in a script that logs each subcommand it is run with.
func countingOpenSSL(t *testing.T) (path, log string) {
	t.Helper()
	fake := writeFakeOpenSSL(t)
	dir := t.TempDir()
	path, log = filepath.Join(dir, "openssl"), filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho \"$1\" >> " + log + "\nexec " + fake + " \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

// runMeasure runs `measure args` with plan on stdin, kept open (as the controller does) until the agent's done
// line, and returns the exit code and the messages.
func runMeasure(t *testing.T, plan string, args ...string) (int, []protocol.Message) {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		c := Main(context.Background(), append([]string{"measure"}, args...), stdinR, stdoutW, io.Discard)
		stdoutW.Close()
		code <- c
	}()
	go func() {
		if plan != "" {
			stdinW.Write([]byte(plan))
		} else {
			stdinW.Close()
		}
	}()
	var out bytes.Buffer
	dec := protocol.NewDecoder(io.TeeReader(stdoutR, &out))
	var msgs []protocol.Message
	for {
		m, err := dec.Next()
		if err != nil {
			break
		}
		msgs = append(msgs, m)
		if m.Type == protocol.TypeDone {
			stdinW.Close()
		}
	}
	select {
	case c := <-code:
		return c, msgs
	case <-time.After(30 * time.Second):
		t.Fatalf("measure did not exit; output so far:\n%s", out.String())
	}
	return 0, nil
}

// TestMainMeasure: `measure` probes once, prints the facts, then sweeps the plan read on stdin with that probe;
// without a plan it is a probe.
func TestMainMeasure(t *testing.T) {
	openssl, calls := countingOpenSSL(t)
	versions := func() int {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), "version\n")
	}
	plan := fmt.Sprintf(`{"openssl":%q,"algorithms":["sha256"],"modes":["cpu"],"sizes":[16],"seconds":1}`+"\n", openssl)

	code, msgs := runMeasure(t, plan, "--openssl", openssl)
	var types []string
	points := 0
	for _, m := range msgs {
		types = append(types, m.Type)
		if m.Type == protocol.TypePoint {
			points++
		}
	}
	if code != 0 || len(msgs) < 4 || msgs[0].Type != protocol.TypeHello || msgs[1].Type != protocol.TypeFacts ||
		msgs[len(msgs)-1].Type != protocol.TypeDone || points != 1 {
		t.Fatalf("measure: exit %d, %v; want 0 with hello, facts, …, one point, done", code, types)
	}
	if n := versions(); n != 1 {
		t.Errorf("measure ran `openssl version` %d times, want 1 (one probe for probe and sweep)", n)
	}
	var evidence bool
	for _, m := range msgs[2:] {
		if m.Type == protocol.TypeFacts && m.Facts.Evidence != nil {
			evidence = true
		}
	}
	if !evidence {
		t.Errorf("the sweep's facts carry no evidence of the board before it: %v", types)
	}

	// A plan for another openssl than the probe's is not served by that probe.
	os.Remove(calls)
	code, msgs = runMeasure(t, plan, "--openssl", writeFakeOpenSSL(t))
	if n := versions(); code != 0 || n != 1 {
		t.Errorf("plan with another openssl: exit %d, the plan's openssl probed %d times, want 0 and 1", code, n)
	}
	last := msgs[len(msgs)-1]
	if last.Type != protocol.TypeDone || last.Done.Points != 1 {
		t.Errorf("plan with another openssl: last line %+v, want done with 1 point", last)
	}

	// EOF instead of a plan: hello, facts, done.
	os.Remove(calls)
	code, msgs = runMeasure(t, "", "--openssl", openssl)
	if code != 0 || len(msgs) != 3 || msgs[1].Type != protocol.TypeFacts || msgs[2].Type != protocol.TypeDone {
		t.Errorf("measure without a plan: exit %d, %d lines; want 0 with hello, facts, done", code, len(msgs))
	}
	if n := versions(); n != 1 {
		t.Errorf("measure without a plan ran `openssl version` %d times, want 1", n)
	}
}
