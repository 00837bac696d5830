package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

func env(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

var boardEnv = env(map[string]string{"FAKEBOARD_NAME": "sim001", "FAKEBOARD_SWEEP": "0s"})

// decode reads the protocol lines of out with the controller's decoder.
func decode(t *testing.T, out []byte) []protocol.Message {
	t.Helper()
	dec := protocol.NewDecoder(bytes.NewReader(out))
	var ms []protocol.Message
	for {
		m, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return ms
		}
		if err != nil {
			t.Fatalf("decode: %v\n%s", err, out)
		}
		ms = append(ms, m)
	}
}

// TestMeasure: hello and facts before the plan is read, then the plan's points in the modes the facts have, a
// skip for each other mode, and done.
func TestMeasure(t *testing.T) {
	plan, _ := json.Marshal(protocol.Plan{Algorithms: []string{"aes-128-cbc", "sha256"}, Modes: []string{"soft", "cpu", "afalg", "nosuch"},
		Sizes: []int{16, 1024}, Seconds: 1})
	// stdin stays open during the sweep, as the controller keeps it: its end would stop the agent
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	go stdinW.Write(append(plan, '\n'))
	var out, errb bytes.Buffer
	if code := run([]string{"measure", "--modes", "soft,cpu", "--probe-cache", "/x"}, stdinR, &out, &errb, boardEnv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	counts := map[string]int{}
	var types []string
	for _, m := range decode(t, out.Bytes()) {
		counts[m.Type]++
		types = append(types, m.Type)
		if m.Point != nil && m.Point.Mode != "soft" && m.Point.Mode != "cpu" {
			t.Errorf("point in mode %s, which the facts do not have", m.Point.Mode)
		}
	}
	if types[0] != protocol.TypeHello || types[1] != protocol.TypeFacts || types[len(types)-1] != protocol.TypeDone {
		t.Errorf("message order %v: want hello, facts, …, done", types)
	}
	if counts[protocol.TypePoint] != 8 || counts[protocol.TypeRaw] != 8 || counts[protocol.TypeSkip] != 2 {
		t.Errorf("counts %v: want 8 points (2 algorithms × 2 sizes × soft, cpu), 8 raws, 2 skips (afalg, nosuch)", counts)
	}
}

// TestMeasureWithoutPlan: a controller that closes stdin after the probe (nothing to sweep) gets a clean exit.
func TestMeasureWithoutPlan(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"measure"}, strings.NewReader(""), &out, &errb, boardEnv); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if ms := decode(t, out.Bytes()); len(ms) != 2 || ms[1].Facts == nil || ms[1].Facts.Hostname != "sim001" {
		t.Errorf("messages %+v: want hello and the facts of sim001", ms)
	}
}

// TestStdinEndStopsSweep: the controller gone (stdin closed) mid-sweep stops the agent at once, exit 1.
func TestStdinEndStopsSweep(t *testing.T) {
	plan := `{"algorithms":["sha256"],"modes":["cpu"],"sizes":[16],"seconds":1}` + "\n"
	var out, errb bytes.Buffer
	start := time.Now()
	code := run([]string{"sweep"}, strings.NewReader(plan), &out, &errb,
		env(map[string]string{"FAKEBOARD_NAME": "b", "FAKEBOARD_SWEEP": "1m"}))
	if code != 1 || !strings.Contains(errb.String(), "stdin closed") || time.Since(start) > 10*time.Second {
		t.Errorf("exit %d after %v, stderr %q: want exit 1 at once, saying stdin closed", code, time.Since(start), errb.String())
	}
}

func TestSHA256(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"sha256", p}, nil, &out, &errb, env(nil)); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if want := "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  " + p + "\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// TestRefused: what the agent cannot do is refused with exit 2, naming the variable or the command at fault.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, nil, "usage"},
		{[]string{"dance"}, map[string]string{"FAKEBOARD_NAME": "b", "FAKEBOARD_SWEEP": "1s"}, `unknown command "dance"`},
		{[]string{"probe"}, map[string]string{"FAKEBOARD_SWEEP": "1s"}, "FAKEBOARD_NAME"},
		{[]string{"probe"}, map[string]string{"FAKEBOARD_NAME": "b", "FAKEBOARD_SWEEP": "soon"}, `FAKEBOARD_SWEEP="soon"`},
		{[]string{"probe"}, map[string]string{"FAKEBOARD_NAME": "b", "FAKEBOARD_SWEEP": "-1s"}, "FAKEBOARD_SWEEP"},
		{[]string{"sweep"}, map[string]string{"FAKEBOARD_NAME": "b", "FAKEBOARD_SWEEP": "1s"}, "plan"},
		{[]string{"sha256"}, nil, "usage"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, strings.NewReader("{not json\n"), &out, &errb, env(tc.env))
		if code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 naming %s", tc.args, code, errb.String(), tc.want)
		}
	}
}
