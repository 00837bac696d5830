package main

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// confirmRepeats is how often --confirm measures each regressed series again, interleaved across modes: enough
// for the U test on the re-measure's side.
const confirmRepeats = 5

// confirmFlags are regress's flags for --confirm: it measures, so it needs what run needs to reach the boards.
func confirmFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.BoolFlag{Name: "confirm", Usage: fmt.Sprintf("measure every regressed series again on its board (%d repeats, "+
			"interleaved, with validity) and re-judge: a drop that is gone is \"transient\", one that stays \"regressed (confirmed)\"", confirmRepeats)},
	}, append(sshFlags(), leaseFlags()...)...)
}

// confirmRegressions measures the regressed series of r again on the boards of the inventory, stores that as a
// run labelled "confirm", and re-judges r with it. Boards the inventory lacks, or that fail, keep their verdict
// with the reason.
func confirmRegressions(c *cli.Context, db *store.DB, r *report.Regression, base, cur []store.Measurement, opts report.RegressOptions) error {
	targets := r.ConfirmTargets()
	if len(targets) == 0 {
		return nil
	}
	inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
	if err != nil {
		return usageErr("--confirm: %w", err)
	}
	notMeasured := map[string]string{}
	var boards []inventory.Board
	sweep := inventory.Profile{Name: "confirm", Threads: 1, Repeats: confirmRepeats, Seconds: confirmSeconds(cur, targets)}
	for _, t := range targets {
		bs, err := inv.Select([]string{t.Board}, nil, false)
		if err != nil || len(bs) != 1 {
			notMeasured[t.Board] = fmt.Sprintf("board %s is not in the inventory %s", t.Board, inv.Path())
			continue
		}
		boards = append(boards, bs[0])
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
	if len(boards) == 0 {
		r.Confirm(base, nil, notMeasured, opts)
		return nil
	}
	progress := newProgress(c.App.ErrWriter)
	ro, err := recordOptions(c, db, store.RunInfo{Label: "confirm", Source: "fleet regress --confirm"}, progress)
	if err != nil {
		return err
	}
	ro.Boards, ro.Sweep, ro.ModesSet = boards, sweep, true
	run, err := fleet.RunRecorded(c.Context, ro)
	progress.Wait()
	if err != nil {
		return usageErr("%w", err)
	}
	if err := c.Context.Err(); err != nil {
		return err
	}
	for _, o := range run.Outcomes {
		if o.Status != protocol.StatusOK && o.Err != nil {
			notMeasured[o.Board] = "measuring again failed: " + o.Err.Error()
		}
	}
	again, err := db.Measurements(c.Context, store.Filter{RunID: run.ID})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "confirm: run %d measured %d points again\n", run.ID, len(again))
	r.Confirm(base, again, notMeasured, opts)
	return nil
}

// confirmSeconds is the seconds per point of the run being judged (the median over the regressed series'
// points, to the whole second: openssl's -seconds takes no fraction), so that the re-measure times what the
// nightly timed; 1 s when it cannot tell.
func confirmSeconds(cur []store.Measurement, targets []report.ConfirmTarget) float64 {
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

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}
