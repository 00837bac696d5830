package opensslspeed

import (
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestCPUShareEvidence: each line of a CPU-timed capture that names its duration says what share of it the
// process had a CPU; a wall-timed capture (-elapsed, -multi) says nothing of it. Figures read from the files.
func TestCPUShareEvidence(t *testing.T) {
	for _, tc := range []struct {
		file    string
		alg, op string
		block   int
		bits    int
		want    float64 // -1: no evidence
	}{
		{"L06", "sha256", "digest", 256, 0, 74},       // 3.0 on a busy machine: 0.74s of 1s
		{"L06", "sha256", "digest", 1024, 0, 59},      // 0.59s of 1s
		{"20", "sha256", "digest", 256, 0, 99.7},      // 2.99s of 3s
		{"20", "sha256", "digest", 8192, 0, 100},      // 3.05s of 3s: past the alarm, all of it
		{"20", "rsa", "sign", 0, 2048, 99.9},          // asymmetric: 9.99s of 10s
		{"11", "rsa", "verify", 0, 1024, 99.3},        // 1.0.2 asymmetric: 9.93s of 10s
		{"S00", "aes-256-cbc", "encrypt", 16, 0, 100}, // 1.0.0 table with progress lines: 3.00s of 3s
		{"07", "aes-128-cbc", "encrypt", 16, 0, 99.3}, // -mr: +DT's 3 s, +R's 2.98
		{"17", "aes-128-cbc", "encrypt", 16, 0, 5.3},  // devcrypto: the kernel did the work (judged elsewhere)
		{"L01", "aes-128-cbc", "encrypt", 256, 0, -1}, // -elapsed
		{"L03", "aes-128-cbc", "encrypt", 256, 0, -1}, // -multi: children timed on the wall clock
	} {
		runs, err := Parse(readSpeedFixture(t, tc.file), Hint{})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		var found *protocol.Point
		for _, r := range runs {
			for i, p := range r.Points {
				if p.Algorithm == tc.alg && p.Op == tc.op && p.BlockSize == tc.block && p.KeyBits == tc.bits && found == nil {
					found = &r.Points[i]
				}
			}
		}
		if found == nil {
			t.Errorf("%s: no %s %s %d/%d point", tc.file, tc.alg, tc.op, tc.block, tc.bits)
			continue
		}
		ev := found.Evidence
		switch {
		case tc.want < 0 && ev != nil:
			t.Errorf("%s %s %d: evidence %+v, want none (timing %s)", tc.file, tc.alg, tc.block, ev, found.Timing)
		case tc.want >= 0 && (ev == nil || ev.CPUSharePct == nil):
			t.Errorf("%s %s %d: no CPU share, want %v", tc.file, tc.alg, tc.block, tc.want)
		case tc.want >= 0 && *ev.CPUSharePct != tc.want:
			t.Errorf("%s %s %d: CPU share %v %%, want %v %%", tc.file, tc.alg, tc.block, *ev.CPUSharePct, tc.want)
		}
	}
}
