package agent

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// decodeAll decodes every protocol line of out, failing the test on a malformed one.
func decodeAll(t *testing.T, out []byte) []protocol.Message {
	t.Helper()
	d := protocol.NewDecoder(bytes.NewReader(out))
	var msgs []protocol.Message
	for {
		m, err := d.Next()
		if errors.Is(err, io.EOF) {
			return msgs
		}
		if err != nil {
			t.Fatalf("line %d: %v", d.Line(), err)
		}
		msgs = append(msgs, m)
	}
}

func TestSweepFakeOpenSSL(t *testing.T) {
	fake := writeFakeOpenSSL(t)
	log := filepath.Join(t.TempDir(), "runs.log")
	plan := protocol.Plan{
		OpenSSL:    fake,
		Env:        map[string]string{"FAKE_LOG": log},
		Algorithms: []string{"aes-128-cbc", "broken-alg"},
		Modes:      []string{"soft", "cpu", "engine:fake", "engine:fakeok", "engine:missing", "nonsense"},
		Sizes:      []int{16, 64},
		Seconds:    1,
		Repeats:    2,
	}
	var out bytes.Buffer
	done, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out))
	if err != nil {
		t.Fatal(err)
	}
	msgs := decodeAll(t, out.Bytes())
	if msgs[0].Type != protocol.TypeFacts {
		t.Fatalf("first line %s, want facts", msgs[0].Type)
	}
	var skips []protocol.Skip
	var errs []string
	raws := map[int]*protocol.Raw{}
	type key struct {
		mode   string
		size   int
		repeat int
	}
	points := map[key]*protocol.Point{}
	for _, m := range msgs {
		switch m.Type {
		case protocol.TypeSkip:
			skips = append(skips, *m.Skip)
		case protocol.TypeError:
			errs = append(errs, m.Error)
		case protocol.TypeRaw:
			raws[m.Raw.ID] = m.Raw
		case protocol.TypePoint:
			p := m.Point
			if raws[p.RawID] == nil {
				t.Errorf("point %+v: raw %d not sent before it", p, p.RawID)
			}
			points[key{p.Mode, p.BlockSize, p.Repeat}] = p
		}
	}
	wantSkips := []protocol.Skip{
		{Mode: "engine:missing", Reason: "engine missing: not available: error:13000074:engine routines:ENGINE_by_id:no such engine:eng_list.c:428:id=missing"},
		{Mode: "nonsense", Reason: "unknown mode"},
	}
	if !reflect.DeepEqual(skips, wantSkips) {
		t.Errorf("skips =\n%+v\nwant\n%+v", skips, wantSkips)
	}
	// broken-alg fails once per size, mode and repeat: 2 sizes x 4 modes x 2 repeats
	if len(errs) != 16 || !strings.Contains(errs[0], "exit 1") || !strings.Contains(errs[0], "Unknown algorithm") {
		t.Errorf("%d error lines, want 16 naming the exit and the reason; first: %q", len(errs), errs)
	}
	if got, want := done, (protocol.Done{Points: 16, Skips: 2, Failed: 4}); got != want {
		t.Errorf("done = %+v, want %+v", got, want)
	}
	for _, mode := range []string{"soft", "cpu", "engine:fake", "engine:fakeok"} {
		for _, size := range []int{16, 64} {
			for r := 0; r < 2; r++ {
				p := points[key{mode, size, r}]
				if p == nil {
					t.Errorf("no point for %s %d repeat %d", mode, size, r)
					continue
				}
				if p.Algorithm != "aes-128-cbc" || p.BytesPerSec != float64(size*1000) || p.WallS <= 0 || p.Threads != 1 {
					t.Errorf("point %+v: want aes-128-cbc at %d000 B/s with wall time", p, size)
				}
				wantFailed := mode == "engine:fake"
				if p.Failed != wantFailed || wantFailed && !strings.Contains(p.Error, `Invalid engine "fake"`) {
					t.Errorf("%s point failed=%v error=%q, want failed=%v (engine fell back)", mode, p.Failed, p.Error, wantFailed)
				}
				if strings.HasPrefix(mode, "engine:") && p.Engine != strings.TrimPrefix(mode, "engine:") {
					t.Errorf("%s point engine %q", mode, p.Engine)
				}
				raw := raws[p.RawID]
				if mode == "soft" && !slices.Contains(raw.Env, ia32capSoftMask) && !slices.Contains(raw.Env, armcapSoftMask) {
					t.Errorf("soft run env %q has no capability mask", raw.Env)
				}
				if !slices.Contains(raw.Env, "FAKE_LOG="+log) {
					t.Errorf("run env %q lacks the plan's env", raw.Env)
				}
			}
		}
	}
	// interleaving: every mode once per (repeat, algorithm, size) before the next
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.Contains(l, "aes-128-cbc") {
			order = append(order, l)
		}
	}
	var want []string
	for r := 0; r < 2; r++ {
		for _, size := range []string{"16", "64"} {
			for _, mode := range []string{"soft", "cpu", "engine:fake", "engine:fakeok"} {
				want = append(want, mode+" aes-128-cbc "+size)
			}
		}
	}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("run order =\n%s\nwant\n%s", strings.Join(order, "\n"), strings.Join(want, "\n"))
	}
}

func TestSweepAfalgOnlyCBC(t *testing.T) {
	s := &sweepState{plan: protocol.Plan{Seconds: 1}}
	v := opensslVersion{Major: 3}
	if _, why := s.prepareOpenSSL("openssl", v, "afalg", "sha256"); !strings.Contains(why, "only aes") {
		t.Errorf("afalg sha256: reason %q, want a skip saying afalg offloads only aes-cbc", why)
	}
	if jobs, why := s.prepareOpenSSL("openssl", v, "afalg", "aes-256-cbc"); why != "" || len(jobs) != len(protocol.DefaultSizes) {
		t.Errorf("afalg aes-256-cbc: %d jobs, reason %q; want one per default size", len(jobs), why)
	}
}

func TestSweepCancelKillsChild(t *testing.T) {
	fake := writeFakeOpenSSL(t)
	// a speed run that never ends and has a grandchild, as openssl -multi does: only a kill of the whole
	// process group ends the grandchild
	dir := t.TempDir()
	slow, pidFile := filepath.Join(dir, "openssl"), filepath.Join(dir, "pid")
	script := "#!/bin/sh\n[ \"$1\" = speed ] && { sleep 60 & echo $! > " + pidFile + "; wait; }\nexec " + fake + " \"$@\"\n"
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	errc := make(chan error, 1)
	go func() {
		_, err := Sweep(ctx, protocol.Plan{OpenSSL: slow, Algorithms: []string{"sha256"}, Modes: []string{"cpu"}, Sizes: []int{16}, Seconds: 60}, protocol.NewEncoder(&out))
		errc <- err
	}()
	// cancel once the grandchild runs (an event, not a sleep: a loaded machine starts processes late)
	var pid string
	for wait := time.Now().Add(time.Minute); pid == ""; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && strings.TrimSpace(string(b)) != "" {
			pid = strings.TrimSpace(string(b))
		} else if time.Now().After(wait) {
			t.Fatalf("the speed child never started: %v", err)
		}
	}
	cancel()
	// The bound is generous: it tells "returns" from "hangs until the 60 s speed run ends", whatever the load.
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Sweep after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Sweep did not return within 30 s of cancel")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || procState(string(st)) == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("grandchild %s of the speed run still alive 30 s after Sweep returned: %s", pid, st)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procState is the state letter of a /proc/PID/stat line ("R", "S", "Z", ...).
func procState(stat string) string {
	if i := strings.LastIndexByte(stat, ')'); i >= 0 && i+3 <= len(stat) {
		return stat[i+2 : i+3]
	}
	return ""
}

// TestSweepProbeUsesPlanEnv: an engine that only loads with the plan's environment (OPENSSL_CONF, ...) is
// available to the sweep.
func TestSweepProbeUsesPlanEnv(t *testing.T) {
	plan := protocol.Plan{OpenSSL: writeFakeOpenSSL(t), Env: map[string]string{"FAKE_ENGINE_OK": "1"}, Algorithms: []string{"sha256"},
		Modes: []string{"engine:envok"}, Sizes: []int{16}, Seconds: 1}
	var out bytes.Buffer
	done, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out))
	if err != nil {
		t.Fatal(err)
	}
	if done.Points != 1 || done.Failed != 0 || done.Skips != 0 {
		t.Errorf("done = %+v, want one good point: output\n%s", done, out.String())
	}
}

// TestSweepOpenSSL10: OpenSSL 1.0 has no -seconds and no -bytes: one run over its default sizes, each point
// flagged, the run's accounting divided among its points.
func TestSweepOpenSSL10(t *testing.T) {
	plan := protocol.Plan{OpenSSL: writeFakeOpenSSL(t), Env: map[string]string{"FAKE_VERSION": "1.0.2k", "FAKE_SLEEP": "0.2"},
		Algorithms: []string{"aes-128-cbc"}, Modes: []string{"cpu"}, Sizes: []int{16, 64}, Seconds: 1}
	var out bytes.Buffer
	if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
		t.Fatal(err)
	}
	var raws []*protocol.Raw
	var points []*protocol.Point
	for _, m := range decodeAll(t, out.Bytes()) {
		if m.Raw != nil {
			raws = append(raws, m.Raw)
		}
		if m.Point != nil {
			points = append(points, m.Point)
		}
	}
	if len(raws) != 1 || len(points) != 2 {
		t.Fatalf("%d runs, %d points; want 1 run with 2 points:\n%s", len(raws), len(points), out.String())
	}
	if got, want := strings.Join(raws[0].Command[1:], " "), "speed -elapsed -mr -evp aes-128-cbc"; got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	for _, p := range points {
		var has3s, hasSplit bool
		for _, f := range p.Flags {
			has3s = has3s || strings.HasPrefix(f, "default-3s:")
			hasSplit = hasSplit || strings.HasPrefix(f, "accounting-split:")
		}
		if !has3s || !hasSplit {
			t.Errorf("point %d B flags %q: want default-3s and accounting-split", p.BlockSize, p.Flags)
		}
		// the fake sleeps 0.2 s: each of the two points gets about half of the run's wall time
		if p.WallS < 0.09 || p.WallS > 1 {
			t.Errorf("point %d B wall %v s, want half of the run's", p.BlockSize, p.WallS)
		}
	}
}
