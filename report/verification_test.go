package report

import (
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func TestVerificationSummary(t *testing.T) {
	for _, tc := range []struct {
		t    protocol.VerificationTally
		want string
	}{
		{protocol.VerificationTally{}, ""},
		{protocol.VerificationTally{Paths: 8, OK: 6, Unknown: 2, Seconds: 3.24}, "8 paths: 6 ok, 2 unknown, 0 wrong; 3.2 s on the board"},
		{protocol.VerificationTally{Paths: 1, Wrong: 1, Seconds: 0.05}, "1 paths: 0 ok, 0 unknown, 1 wrong; 0.1 s on the board"},
	} {
		if got := VerificationSummary(tc.t); got != tc.want {
			t.Errorf("VerificationSummary(%+v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
