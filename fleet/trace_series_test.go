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
	pt.begin(now)
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
