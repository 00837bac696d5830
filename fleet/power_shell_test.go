package fleet

import (
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestShellPathHwmonEnergyUnknown: a shell-path board whose boards.toml names a hwmon rail is measured as any
// other (the sweep's points, no error line: the board is not partial for it); the shell path cannot sample the
// rail, so the facts and every point say why their energy is unknown, and no point has a figure. Before, the
// sweep sent a board error and the lab's shell-path run ended partial (exit 3) for a limit of the path.
func TestShellPathHwmonEnergyUnknown(t *testing.T) {
	plan := protocol.Plan{OpenSSL: "openssl", Modes: []string{protocol.ModeCPU}, Algorithms: []string{"sha256"},
		Sizes: []int{16, 1024}, Seconds: 1, Power: &protocol.PowerPlan{Hwmon: "ina226"}}
	const why = "the shell path does not sample the board's hwmon rails"
	points := 0
	shellSweep(t, shellBoard(t, []string{"dash"}), plan, func(m *protocol.Message) {
		switch {
		case m.Type == protocol.TypeError:
			t.Errorf("error line: %s", m.Error)
		case m.Facts != nil:
			if pf := m.Facts.Power; pf == nil || !strings.Contains(pf.Unknown, why) || pf.Source != "" {
				t.Errorf("facts power %+v, want unknown: %s", pf, why)
			}
		case m.Point != nil:
			points++
			if p := m.Point; !strings.Contains(p.EnergyUnknown, why) || p.EnergyJ != nil || p.EnergyUJPerByte != nil {
				t.Errorf("point %d B: energy %v µJ/B %v unknown %q, want unknown: %s", p.BlockSize, p.EnergyJ, p.EnergyUJPerByte,
					p.EnergyUnknown, why)
			}
		}
	})
	if points != 2 {
		t.Errorf("%d points, want 2", points)
	}
}
