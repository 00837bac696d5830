package agent

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// FuzzEvidenceParsers feeds the same bytes to every evidence parser as /proc/stat, time_in_state, /proc/vmstat
// and /proc/loadavg: none may panic, and what they accept must make evidence that encodes (no NaN, no negative
// share) however the "before" and "after" readings relate.
func FuzzEvidenceParsers(f *testing.F) {
	for _, s := range []string{
		"cpu  10 0 5 100 1 0 0 3 0 0\ncpu0 10 0 5 100 1 0 0 3 0 0\n",
		"408000 10\n1800000 20\n",
		"pswpin 1\npswpout 2\n",
		"0.52 0.58 0.59 1/189 12345\n",
		"cpu 18446744073709551615 0 0 0 0 0 0 0\n",
	} {
		f.Add([]byte(s), []byte(s))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		sa, errA := parseProcStatLines(bytes.NewReader(a))
		sb, errB := parseProcStatLines(bytes.NewReader(b))
		ta, _ := parseTimeInState(bytes.NewReader(a))
		tb, _ := parseTimeInState(bytes.NewReader(b))
		parseVMStatSwap(bytes.NewReader(a))
		if v, err := parseLoadAvg(string(a)); err == nil && (v < 0 || math.IsNaN(v) || math.IsInf(v, 0)) {
			t.Errorf("parseLoadAvg(%q) = %v", a, v)
		}
		if pct, _, ok := belowMax(ta, tb, 1000000); ok && (pct < 0 || pct > 100 || math.IsNaN(pct)) {
			t.Errorf("belowMax = %v", pct)
		}
		if errA != nil || errB != nil {
			return
		}
		before := evidenceSample{stat: sa, tree: 0, treeOK: true}
		after := evidenceSample{stat: sb, tree: 1, treeOK: true}
		ev := evidenceBetween(before, after)
		if _, err := json.Marshal(ev); err != nil {
			t.Fatalf("evidence does not encode: %v (%+v)", err, ev)
		}
		for _, p := range append([]*float64{ev.BackgroundPct, ev.StealPct}, nil) {
			if p != nil && (*p < 0 || *p > 100) {
				t.Errorf("share %v out of 0–100", *p)
			}
		}
		for _, c := range ev.CoreBusyPct {
			if c < 0 || c > 100 {
				t.Errorf("core busy %v out of 0–100", c)
			}
		}
	})
}
