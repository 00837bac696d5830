package report

import (
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// VerificationSummary words what a board's verification came to, for the end of fleet run: "8 paths: 6 ok,
// 2 unknown, 0 wrong; 3.2 s on the board"; "" when nothing was verified.
func VerificationSummary(t protocol.VerificationTally) string {
	if t.Paths == 0 {
		return ""
	}
	return fmt.Sprintf("%d paths: %d ok, %d unknown, %d wrong; %.1f s on the board", t.Paths, t.OK, t.Unknown, t.Wrong,
		t.Seconds)
}
