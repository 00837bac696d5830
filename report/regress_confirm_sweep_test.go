package report

import (
	"slices"
	"testing"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestPlanConfirm: --confirm measures the union of the regressed series of the boards the inventory has, at
// the median seconds per point of the run being judged (whole seconds, 1 to 60), and names the boards it lacks.
func TestPlanConfirm(t *testing.T) {
	inv, err := inventory.Parse("boards.toml", []byte("[boards.am64x]\nhost = \"192.0.2.64\"\n[boards.rpi4]\nhost = \"192.0.2.4\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	targets := []ConfirmTarget{
		{Board: "am64x", Algorithms: []string{"aes-128-cbc"}, Modes: []string{"afalg", "cpu"}, Sizes: []int{16384, 16}, Threads: 1},
		{Board: "gone", Algorithms: []string{"sha256"}, Modes: []string{"cpu"}, Sizes: []int{64}, Threads: 1},
		{Board: "rpi4", Algorithms: []string{"sha256", "aes-128-cbc"}, Modes: []string{"cpu"}, Sizes: []int{1024}, Threads: 2},
	}
	point := func(board, mode, alg string, secs float64, timing string) store.Measurement {
		return store.Measurement{Board: board, Point: protocol.Point{Mode: mode, Algorithm: alg, Seconds: secs, Timing: timing}}
	}
	cur := []store.Measurement{point("am64x", "cpu", "aes-128-cbc", 3, "wall"), point("am64x", "afalg", "aes-128-cbc", 3, "wall"),
		point("rpi4", "cpu", "sha256", 10, "wall"), point("rpi4", "cpu", "sha256", 99, "cpu"), point("am64x", "soft", "aes-128-cbc", 50, "wall")}
	plan := PlanConfirm(inv, targets, cur)
	var boards []string
	for _, b := range plan.Boards {
		boards = append(boards, b.Name)
	}
	s := plan.Sweep
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"boards", boards, []string{"am64x", "rpi4"}},
		{"algorithms", s.Algorithms, []string{"aes-128-cbc", "sha256"}},
		{"modes", s.Modes, []string{"afalg", "cpu"}},
		{"sizes", s.Sizes, []int{16, 1024, 16384}},
		{"threads", s.Threads, 2},
		{"repeats", s.Repeats, ConfirmRepeats},
		{"seconds", s.Seconds, 3.0}, // median of 3, 3, 10 (wall-timed points of the targets' series only)
		{"not measured", plan.NotMeasured["gone"], "board gone is not in the inventory boards.toml"},
	} {
		if g, w := c.got, c.want; !equalAny(g, w) {
			t.Errorf("%s = %v, want %v", c.what, g, w)
		}
	}
	if got := PlanConfirm(inv, targets[:1], nil).Sweep.Seconds; got != 1 {
		t.Errorf("seconds without points = %v, want 1", got)
	}
	if got := PlanConfirm(inv, []ConfirmTarget{{Board: "am64x", Algorithms: []string{"rsa2048"}, Modes: []string{"cpu"}}}, nil).Sweep.Sizes; !slices.Equal(got, inventory.DefaultSizes()) {
		t.Errorf("sizes of public-key series alone = %v, want the default sizes", got)
	}
}

func equalAny(a, b any) bool {
	switch a := a.(type) {
	case []string:
		return slices.Equal(a, b.([]string))
	case []int:
		return slices.Equal(a, b.([]int))
	}
	return a == b
}
