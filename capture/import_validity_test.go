package capture

import (
	"context"
	"github.com/fleetlab/fleet/validity"
	"os"
	"path/filepath"
	"testing"
)

// TestImportJudgesCPUShare: an imported point's verdict is its capture's CPU share, judged with the board's
// limits, in soft and cpu; a wall-timed capture and a kernel path stay unknown. Figures from the captures: L06
// had the CPU 59–74 % of each 1-s line, 20 99.7–100 %, 17 (devcrypto) 0.5–6.7 %.
func TestImportJudgesCPUShare(t *testing.T) {
	dir := t.TempDir()
	write := func(name, prefix string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(readCapture(t, prefix)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		file, mode string
		limits     validity.Overrides
		want       map[string]string // the verdict of every point, by mode
		reason     string            // the first point's first reason
	}{
		{write("busy.txt", "L06"), "", validity.Overrides{}, map[string]string{"cpu": "invalid"},
			"had the CPU 61 % of the time: the machine was busy (invalid below 84 %)"},
		{write("quiet.txt", "20"), "", validity.Overrides{}, map[string]string{"cpu": "ok"}, ""},
		// the board's limits from boards.toml: a lab that tolerates half a core of background
		{write("busy-tolerated.txt", "L06"), "", validity.Overrides{BackgroundPeakPct: pct(50), BackgroundAvgPct: pct(45)},
			map[string]string{"cpu": "ok"}, ""},
		{write("elapsed.txt", "L01"), "", validity.Overrides{}, map[string]string{"cpu": ""}, ""},
		{write("multi.txt", "L03"), "", validity.Overrides{}, map[string]string{"cpu": ""}, ""},
		// 17: devcrypto had the CPU 1–6 % (the kernel did the work), then the software run after modprobe -r
		{write("devcrypto.txt", "17"), "", validity.Overrides{}, map[string]string{"devcrypto": "", "cpu": "ok"}, ""},
		{write("engine.txt", "L06"), "engine:qat", validity.Overrides{}, map[string]string{"engine:qat": ""}, ""},
	} {
		sink := &recordSink{}
		if _, err := Import(context.Background(), ImportOptions{Board: "x86", Files: []string{tc.file}, Mode: tc.mode,
			Validity: tc.limits}, sink); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		n := 0
		for _, run := range sink.runs {
			for _, p := range run {
				if p.Failed {
					continue
				}
				n++
				if want, ok := tc.want[p.Mode]; !ok || p.Validity != want {
					t.Errorf("%s: %s %s %d B: validity %q %q, want %q", filepath.Base(tc.file), p.Mode, p.Algorithm,
						p.BlockSize, p.Validity, p.ValidityReasons, tc.want[p.Mode])
				}
				if n == 1 && tc.reason != "" && (len(p.ValidityReasons) == 0 || p.ValidityReasons[0] != tc.reason) {
					t.Errorf("%s: first reasons %q, want %q", filepath.Base(tc.file), p.ValidityReasons, tc.reason)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no points", tc.file)
		}
	}
}

func pct(v float64) *float64 { return &v }
