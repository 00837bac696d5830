package report

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/store"
)

// ConfirmRepeats is how often --confirm measures each regressed series again, interleaved across modes: enough
// for the U test on the re-measure's side.
const ConfirmRepeats = 5

// ConfirmPlan is what a confirmation measures again: one sweep over the boards with regressed series.
type ConfirmPlan struct {
	Boards []inventory.Board // the targets' boards that the inventory has
	// Sweep is the union of the targets' series (algorithms, modes, sizes, threads), ConfirmRepeats repeats, at
	// the seconds per point of the run being judged (ConfirmSeconds).
	Sweep inventory.Profile
	// NotMeasured are the targets' boards the inventory lacks, with why: they keep their verdict with the reason.
	NotMeasured map[string]string
}

// PlanConfirm is the sweep that measures targets again on the boards of inv, timed as cur (the points of the
// run being judged) was.
func PlanConfirm(inv *inventory.Inventory, targets []ConfirmTarget, cur []store.Measurement) ConfirmPlan {
	plan := ConfirmPlan{NotMeasured: map[string]string{},
		Sweep: inventory.Profile{Name: "confirm", Threads: 1, Repeats: ConfirmRepeats, Seconds: ConfirmSeconds(cur, targets)}}
	sweep := &plan.Sweep
	for _, t := range targets {
		bs, err := inv.Select([]string{t.Board}, nil, false)
		if err != nil || len(bs) != 1 {
			plan.NotMeasured[t.Board] = fmt.Sprintf("board %s is not in the inventory %s", t.Board, inv.Path())
			continue
		}
		plan.Boards = append(plan.Boards, bs[0])
		sweep.Algorithms = union(sweep.Algorithms, t.Algorithms)
		sweep.Modes = union(sweep.Modes, t.Modes)
		for _, s := range t.Sizes {
			if !slices.Contains(sweep.Sizes, s) {
				sweep.Sizes = append(sweep.Sizes, s)
			}
		}
		sweep.Threads = max(sweep.Threads, t.Threads)
	}
	sort.Ints(sweep.Sizes)
	if len(sweep.Sizes) == 0 {
		sweep.Sizes = inventory.DefaultSizes() // only public-key series regressed: sizes are ignored
	}
	return plan
}

// ConfirmSeconds is the seconds per point of the run being judged (the median over the regressed series'
// points, to the whole second: openssl's -seconds takes no fraction), so that the re-measure times what the
// nightly timed; 1 s when it cannot tell.
func ConfirmSeconds(cur []store.Measurement, targets []ConfirmTarget) float64 {
	var secs []float64
	for _, m := range cur {
		for _, t := range targets {
			if m.Board == t.Board && slices.Contains(t.Modes, m.Mode) && slices.Contains(t.Algorithms, m.Algorithm) &&
				m.Timing == "wall" && m.Seconds > 0 {
				secs = append(secs, m.Seconds)
			}
		}
	}
	if len(secs) == 0 {
		return 1
	}
	sort.Float64s(secs)
	return math.Min(math.Max(math.Round(secs[len(secs)/2]), 1), 60)
}

// union is a with the elements of b it lacks, in b's order.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
