package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// A series is every block size of one (mode, algorithm, direction). Where the output allows it, one openssl
// process measures the whole series (sweep_series_child.go reads each size's time and CPU from its -mr lines):
// on an emulated board openssl's start and exit cost 0.1–0.3 s, paid once per series instead of once per size.
// OpenSSL 1.1.1 and 3.x take one size with -bytes, so only a series of their default sizes (16 B to 16 KiB, the
// sizes openssl measures without -bytes) is one process; any other size list keeps one process per size.
// Neither is a series: -multi (its children print the -mr lines and the parent echoes them, so no one
// process's counters are the size's), OpenSSL before 1.1.1 (no -bytes: one run over its sizes already, its
// accounting divided), and the shell path (remote.go runs each command in one shell round trip).

// flagSizeAccounts marks the points of a series run: their times are each size's own, not a division.
const flagSizeAccounts = "accounting-per-size: one openssl run measured %d sizes; each point's wall, user and sys " +
	"run from its +DT line to its +R line, openssl's start and exit are in none"

// seriesCommand is the one command that measures all of cmds (one direction's commands, one per size, as
// buildSpeedCommands made them), or nil and why there is none.
func seriesCommand(cmds []speedCommand, v opensslVersion, plan protocol.Plan) (*speedCommand, string) {
	sizes := make([]int, 0, len(cmds))
	for _, c := range cmds {
		sizes = append(sizes, c.Size)
	}
	switch {
	case len(cmds) < 2 || slices.Contains(sizes, 0):
		return nil, "" // one command already
	case !v.atLeast(1, 1, 1):
		return nil, ""
	case plan.Threads > 1:
		return nil, fmt.Sprintf("-multi %d: the sizes run in child processes", plan.Threads)
	case !slices.Equal(sizes, protocol.DefaultSizes):
		return nil, "the plan's sizes are not openssl's default list, and -bytes takes one size"
	}
	c := cmds[0]
	argv := make([]string, 0, len(c.Argv))
	for i := 0; i < len(c.Argv); i++ {
		if c.Argv[i] == "-bytes" && i+1 < len(c.Argv) {
			i++
			continue
		}
		argv = append(argv, c.Argv[i])
	}
	c.Argv, c.Size = argv, 0
	return &c, ""
}

// jobGroup is the jobs one openssl process measures when all of them still run (whole); else each runs alone.
type jobGroup struct {
	jobs  []int // into the sweep's order
	whole *speedCommand
}

// schedule orders the jobs of each algorithm: first each series (mode by mode in plan order, encryption then
// decryption), then every other job interleaved as before, every mode once per block size before any runs
// again. A public-key group (sweep_asym.go) is placed at its first algorithm, its jobs together.
func schedule(jobs [][][]sweepJob) ([]sweepJob, []jobGroup) {
	var order []sweepJob
	var groups []jobGroup
	var placed []*speedCommand // the public-key groups already in order
	for ai := range jobs {
		var rest [][]sweepJob
		for cell, list := range jobs[ai] {
			var alone []sweepJob
			if len(list) == 1 && list[0].series != nil && len(list[0].series.Algs) > 0 {
				// a public-key group (sweep_asym.go): its jobs are in this cell of this and later algorithms
				if !slices.Contains(placed, list[0].series) {
					placed = append(placed, list[0].series)
					g := jobGroup{whole: list[0].series}
					for _, later := range jobs[ai:] {
						if l := later[cell]; len(l) == 1 && l[0].series == g.whole {
							g.jobs = append(g.jobs, len(order))
							order = append(order, l[0])
						}
					}
					groups = append(groups, g)
				}
				rest = append(rest, nil)
				continue
			}
			for i := 0; i < len(list); {
				k := i + 1
				for k < len(list) && list[i].series != nil && list[k].series == list[i].series {
					k++
				}
				if list[i].series == nil {
					alone = append(alone, list[i])
					i = k
					continue
				}
				g := jobGroup{whole: list[i].series}
				for ; i < k; i++ {
					g.jobs = append(g.jobs, len(order))
					order = append(order, list[i])
				}
				groups = append(groups, g)
			}
			rest = append(rest, alone)
		}
		slots := 0
		for _, list := range rest {
			slots = max(slots, len(list))
		}
		for slot := 0; slot < slots; slot++ {
			for _, list := range rest {
				if slot < len(list) {
					groups = append(groups, jobGroup{jobs: []int{len(order)}})
					order = append(order, list[slot])
				}
			}
		}
	}
	return order, groups
}

// runGroup measures the jobs of g still active as repeat rep and returns each one's points: one process for all
// of a series, else one per job.
func (s *sweepState) runGroup(ctx context.Context, order []sweepJob, g jobGroup, active []int, rep int) ([][]protocol.Point, error) {
	jobs := make([]sweepJob, len(active))
	for k, i := range active {
		jobs[k] = order[i]
	}
	if g.whole != nil && len(g.whole.Algs) > 0 && len(active) > 1 && !s.asymFailed {
		// the algorithms still repeating, in one openssl still
		return s.runAsymGroup(ctx, jobs, asymSubset(g.whole, jobs), rep)
	}
	if g.whole != nil && len(g.whole.Algs) == 0 && len(active) == len(g.jobs) && s.remote == nil {
		out := make([][]protocol.Point, len(active))
		j := order[active[0]]
		j.speed = g.whole
		s.sent = s.sent[:0]
		if err := s.enc.Encode(protocol.TypeBegin, j.begin(rep)); err != nil {
			return nil, err
		}
		err := s.runSeries(ctx, j, rep)
		for _, p := range s.sent {
			for k, i := range active {
				if order[i].speed.Size == p.BlockSize {
					out[k] = append(out[k], p)
				}
			}
		}
		return out, err
	}
	return s.runEach(ctx, jobs, rep)
}

// runEach measures each of jobs alone, in its own command, as repeat rep, and returns each one's points.
func (s *sweepState) runEach(ctx context.Context, jobs []sweepJob, rep int) ([][]protocol.Point, error) {
	out := make([][]protocol.Point, len(jobs))
	for k, j := range jobs {
		s.sent = s.sent[:0]
		if err := s.enc.Encode(protocol.TypeBegin, j.begin(rep)); err != nil {
			return nil, err
		}
		err := s.run(ctx, j, rep)
		out[k] = slices.Clone(s.sent)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// runSeries runs the series command of j: one openssl for every size, each point accounted from its own +DT
// and +R lines. A point whose lines did not come (an openssl that prints none) gets the run's accounting
// divided, flagged as such.
func (s *sweepState) runSeries(ctx context.Context, j sweepJob, repeat int) error {
	c := j.speed
	runCtx, cancel := context.WithTimeout(ctx, speedTimeout(c))
	defer cancel()
	pin := s.pinnedRun(j)
	before, beforeCPUs := s.sampleSystem(), pin.sample(s.root)
	res, spans := runSeriesChild(runCtx, c.Argv, c.Env, s.root, s.sampleSystem, pin, nil)
	pin.finish(s.root, beforeCPUs)
	after := s.sampleSystem()
	if ctx.Err() != nil {
		return fmt.Errorf("sweep: %w", ctx.Err())
	}
	used := make([]bool, len(spans))
	return s.openSSLPoints(ctx, j, repeat, res, func(p *protocol.Point, n int) {
		for i, sp := range spans {
			if used[i] || sp.size != p.BlockSize {
				continue
			}
			used[i] = true
			wall, user, sys := sp.times()
			p.Flags = append(p.Flags, fmt.Sprintf(flagSizeAccounts, len(spans)))
			setAccounting(p, wall, user, sys, sp.dt.sys, sp.r.sys)
			pin.mark(p)
			s.window(p, sp.dt.sys, sp.r.sys, false)
			return
		}
		splitAccounting(p, n, res, before, after)
		pin.mark(p)
		s.window(p, before, after, n > 1)
	})
}

// seriesNotes says, once per sweep, which openssl series run as one process and which do not and why, for the
// trace and the log.
func seriesNotes(groups []jobGroup, why map[string][]string, remote bool) []string {
	n, asym := 0, 0
	for _, g := range groups {
		switch {
		case g.whole != nil && len(g.whole.Algs) > 0:
			asym++
		case g.whole != nil:
			n++
		}
	}
	var notes []string
	if n > 0 && remote {
		notes = append(notes, fmt.Sprintf("openssl: one process per block size for all %d series: the shell path runs "+
			"one command per round trip", n))
	} else if n > 0 {
		notes = append(notes, fmt.Sprintf("openssl: one process for each of %d series of the default sizes "+
			"(each size timed from its -mr lines)", n))
	}
	if asym > 0 {
		notes = append(notes, fmt.Sprintf("openssl: one process for the public-key algorithms of each of %d modes "+
			"(each operation timed from its -mr lines)", asym))
	}
	keys := make([]string, 0, len(why))
	for k := range why {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		notes = append(notes, fmt.Sprintf("openssl: one process per block size for %s: %s", strings.Join(why[k], ", "), k))
	}
	return notes
}
