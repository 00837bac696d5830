package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// precisionRun is a run measured with --precision 2 --max-repeat 20 on one board: a quiet point that stopped at
// the minimum, a noisy one at the cap, one that stopped early (budget) before it had an interval, and one with
// an invalid repeat (wildly off) that does not count.
func precisionRun() []store.Measurement {
	flag := precision.Flag(2, 20)
	quiet := jitter(400e6, 6, 0)                                  // ±0.8 %: reached at n = 6
	noisy := make([]float64, 20)                                  // ±15 %: the cap
	for i, d := range []float64{-15, 12, -9, 14, -3, 8, -12, 5} { // repeated over 20 repeats
		for j := i; j < 20; j += 8 {
			noisy[j] = 150e6 * (1 + (d+float64(j-i)/4)/100)
		}
	}
	early := jitter(90e6, 4, 2)
	withInvalid := append(jitter(600e6, 6, 3), 300e6) // the 7th repeat ran during a cron job
	ss := []series{
		{board: "am64x", mode: "cpu", alg: "aes-128-cbc", op: "encrypt", size: 1024, values: quiet, cpu: 100},
		{board: "am64x", mode: "soft", alg: "aes-128-cbc", op: "encrypt", size: 1024, values: noisy, cpu: 100},
		{board: "am64x", mode: "cpu", alg: "aes-128-cbc", op: "encrypt", size: 16384, values: withInvalid, cpu: 100},
		{board: "am64x", mode: "soft", alg: "aes-128-cbc", op: "encrypt", size: 16384, values: early, cpu: 100},
	}
	ms := build(7, "nightly", time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC), ss)
	for i := range ms {
		ms[i].Flags = []string{flag}
		ms[i].Validity = protocol.ValidityOK
		if ms[i].Mode == "cpu" && ms[i].BlockSize == 16384 && ms[i].Repeat == 6 {
			ms[i].Validity, ms[i].ValidityReasons = protocol.ValidityInvalid, []string{"background CPU 38 % (limit 8 %)"}
		}
	}
	return ms
}

func TestPrecisionOfSamples(t *testing.T) {
	samples, _ := Group(precisionRun())
	type want struct {
		n, repeats int
		stop       string
		half       bool
	}
	wants := map[[2]any]want{
		{"cpu", 1024}:   {6, 6, StopReached, true},
		{"soft", 1024}:  {20, 20, StopMaxRepeat, true},
		{"cpu", 16384}:  {6, 7, StopReached, true}, // the invalid repeat is stored, not counted
		{"soft", 16384}: {4, 4, StopEarly, false},
	}
	for _, s := range samples {
		p := precisionOf(s)
		w := wants[[2]any{s.Key.Mode, s.Key.BlockSize}]
		if p == nil || p.N != w.n || p.Repeats != w.repeats || p.Stop != w.stop || (p.HalfPct != nil) != w.half {
			t.Errorf("%s: precision %+v, want n %d of %d, stop %s, interval %v", s.Key.Label(), p, w.n, w.repeats, w.stop, w.half)
		}
	}
	if p := precisionOf(&Sample{Values: []float64{1, 2}}); p != nil {
		t.Errorf("a sample without a target has precision %+v", p)
	}
}

func TestPrecisionGolden(t *testing.T) {
	ms := precisionRun()
	c, err := Compare(ms, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FormatText, FormatMarkdown, FormatCSV, FormatJSON} {
		var b bytes.Buffer
		if err := WriteCompareLayout(&b, c, f, Layout{}); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "precision_compare."+f+".golden", b.Bytes())
	}
	var b bytes.Buffer
	if err := WriteCompareLayout(&b, c, FormatText, Layout{Wide: true}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "precision_compare_wide.text.golden", b.Bytes())
	for _, f := range []string{FormatText, FormatCSV, FormatJSON} {
		var b bytes.Buffer
		if err := WriteResults(&b, ms, f); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "precision_results."+f+".golden", b.Bytes())
	}
}
