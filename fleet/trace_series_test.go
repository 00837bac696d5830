package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestTracePointSeries: a point's trace line says when its openssl measured the whole series or was divided.
func TestTracePointSeries(t *testing.T) {
	var lines []string
	tr := Tracer(func(board, what string, start time.Time, took time.Duration) { lines = append(lines, what) })
	var pt pointTimer
	now := time.Unix(100, 0)
	pt.begin(protocol.Begin{Mode: "cpu", Algorithm: "aes-128-cbc"}, now)
	for _, p := range []protocol.Point{
		{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, RawID: 3, Flags: []string{"accounting-per-size: one openssl run measured 6 sizes"}},
		{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, RawID: 4, Flags: []string{"accounting-split: one openssl run gave 2 points"}},
		{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 16, RawID: 5},
	} {
		pt.point(tr, "b", p, now.Add(time.Second))
	}
	want := []string{", one openssl for its series (raw 3)", ", one openssl run divided (raw 4)", "openssl measured 0.00 s"}
	for i, w := range want {
		if !strings.HasSuffix(lines[i], w) {
			t.Errorf("trace line %d %q, want it to end %q", i, lines[i], w)
		}
	}
}

// TestTracePointJoined: the public-key algorithms of a mode in one openssl are timed from the command's Begin,
// not from the Begin of the algorithm the board reached last (joined to it), and say they shared one openssl.
func TestTracePointJoined(t *testing.T) {
	type line struct {
		what  string
		start time.Time
	}
	var lines []line
	tr := Tracer(func(board, what string, start time.Time, took time.Duration) {
		lines = append(lines, line{what, start})
	})
	var pt pointTimer
	t0 := time.Unix(100, 0)
	pt.begin(protocol.Begin{Mode: "cpu", Algorithm: "rsa2048"}, t0)
	pt.begin(protocol.Begin{Mode: "cpu", Algorithm: "ecdsap256", Joined: true}, t0.Add(2*time.Second))
	flag := []string{"accounting-per-op: one openssl run measured 4 operations of 2 public-key algorithms"}
	for _, p := range []protocol.Point{
		{Mode: "cpu", Algorithm: "rsa", Op: "sign", RawID: 7, Flags: flag},
		{Mode: "cpu", Algorithm: "ecdsa", Op: "verify", RawID: 7, Flags: flag},
	} {
		pt.point(tr, "b", p, t0.Add(4*time.Second))
	}
	pt.begin(protocol.Begin{Mode: "soft", Algorithm: "rsa2048"}, t0.Add(5*time.Second))
	pt.point(tr, "b", protocol.Point{Mode: "soft", Algorithm: "rsa", Op: "sign"}, t0.Add(6*time.Second))
	for i, want := range []time.Time{t0, t0, t0.Add(5 * time.Second)} {
		if !lines[i].start.Equal(want) {
			t.Errorf("line %d %q starts %v, want %v", i, lines[i].what, lines[i].start, want)
		}
	}
	if !strings.HasSuffix(lines[0].what, ", one openssl for its public-key algorithms (raw 7)") {
		t.Errorf("trace line %q does not say its openssl measured its mode's public-key algorithms", lines[0].what)
	}
}
