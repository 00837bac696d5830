package fleet

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

func TestPowerPlan(t *testing.T) {
	if p := powerPlan(inventory.Board{PowerHwmon: "ina226/1"}, 2); p == nil || p.Hwmon != "ina226/1" || p.IdleS != 2 || p.Windows {
		t.Errorf("hwmon board: %+v", p)
	}
	if p := powerPlan(inventory.Board{PowerCommand: "meter"}, 0); p == nil || p.Command != "meter" || p.IdleS != 3 || !p.Windows {
		t.Errorf("meter board: %+v", p)
	}
	if p := powerPlan(inventory.Board{}, 2); p != nil {
		t.Errorf("board without a source: %+v", p)
	}
}

// TestControllerPowerMeter reads a lab meter (a shell command printing the watts a file holds) over an idle
// rest and a point whose window the agent stamped, as consume does.
func TestControllerPowerMeter(t *testing.T) {
	file := filepath.Join(t.TempDir(), "watts")
	if err := os.WriteFile(file, []byte("2.5 W\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := startMeter(context.Background(), "cat "+file, 50*time.Millisecond)
	defer m.close()
	time.Sleep(400 * time.Millisecond)
	f := &protocol.Facts{Power: &protocol.PowerFacts{IdleS: 0.3}}
	m.facts(f)
	if f.Power.IdleW == nil || math.Abs(*f.Power.IdleW-2.5) > 1e-9 || f.Power.Source != "command" {
		t.Fatalf("idle: %+v", f.Power)
	}
	if err := os.WriteFile(file, []byte("6.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	time.Sleep(500 * time.Millisecond)
	wall := time.Since(start).Seconds()
	p := &protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 1024, Count: 1e5,
		Window: &protocol.PointWindow{Seconds: wall, EndedAgoS: 0}}
	m.point(p)
	if p.EnergyJ == nil || math.Abs(*p.PowerW-6.5) > 1e-6 || p.EnergyUJPerByte == nil ||
		math.Abs(*p.EnergyUJPerByte-4*wall/1.024e8*1e6) > 1e-3 {
		t.Fatalf("point: %v W, %v µJ/B (%s)", p.PowerW, p.EnergyUJPerByte, p.EnergyUnknown)
	}
	for _, tc := range []struct{ out, want string }{{"lots", `printed "lots", expected watts`}, {"", "printed nothing"}, {"-3", "read -3"}} {
		if err := os.WriteFile(file, []byte(tc.out), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		q := &protocol.Point{Mode: "cpu", Algorithm: "aes-128-cbc", BlockSize: 1024, Count: 1e5,
			Window: &protocol.PointWindow{Seconds: 0.3}}
		m.point(q)
		if q.EnergyJ != nil || !strings.Contains(q.EnergyUnknown, tc.want) {
			t.Errorf("meter printing %q: %v J, %q; want unknown naming %q", tc.out, q.EnergyJ, q.EnergyUnknown, tc.want)
		}
	}
	if q := (&protocol.Point{Mode: "cpu", Algorithm: "x"}); true {
		m.point(q)
		if !strings.Contains(q.EnergyUnknown, "no window") {
			t.Errorf("a point without a window: %q", q.EnergyUnknown)
		}
	}
}
