package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

// The repeat loop runs on the board, where the interleaving happens: it sees every repeat the moment it ends
// and starts the next round with only the points that still need one, without a round trip to the controller
// per repeat (which on a 50 ms link, or a controller driving 50 boards, would cost more than a short point).
// It judges each repeat with the controller's own verdict function and the limits the plan carries, so that a
// repeat the controller will store as invalid is not counted here either.

// Why a job stopped repeating.
const (
	stopReached = "reached" // every point of the job is within the target
	stopCap     = "cap"     // the plan's repeats (--max-repeat) ran out first
	stopBudget  = "budget"  // the board's time budget was spent
	stopFailed  = "failed"  // a repeat gave no successful point: repeating a failure measures nothing
)

// repeater decides how often each job of a sweep runs: Repeats times each, or, with a target, until every point
// of the job has a 95 % interval of its median within ±target % (at most Repeats times), and never beyond the
// budget.
type repeater struct {
	repeats int
	target  float64       // percent; 0: fixed repeats
	budget  time.Duration // 0: none
	limits  validity.Overrides
	now     func() time.Time
}

func newRepeater(plan protocol.Plan) repeater {
	r := repeater{repeats: max(plan.Repeats, 1), target: plan.PrecisionPct, now: time.Now,
		budget: time.Duration(plan.BudgetS * float64(time.Second))}
	if l := plan.Limits; l != nil {
		r.limits = validity.Overrides{BackgroundPeakPct: l.BackgroundPeakPct, BackgroundAvgPct: l.BackgroundAvgPct,
			ThrottlePct: l.ThrottlePct}
	}
	return r
}

// pointKey names one point of a job: a job's command can yield several (sign and verify, or every size of an
// OpenSSL 1.0 run).
type pointKey struct {
	op      string
	size    int
	keyBits int
	curve   string
}

// jobState is what the loop knows of one job.
type jobState struct {
	runs    int
	counted map[pointKey][]float64 // throughputs of the repeats that count, per point, ascending
	stop    string
}

// widest is the half width, in percent, of the interval of the job's least precise point (+Inf without one).
func (st *jobState) widest() float64 {
	worst := 0.0
	for _, vs := range st.counted {
		worst = max(worst, precision.MedianCI(vs).HalfPct())
	}
	return worst
}

// loop runs n jobs round by round, in their order (the interleaving), each until it stops. run measures job i
// as repeat rep and returns the points it sent.
func (r repeater) loop(ctx context.Context, n int, run func(ctx context.Context, i, rep int) ([]protocol.Point, error)) ([]jobState, error) {
	groups := make([][]int, n)
	for i := range groups {
		groups[i] = []int{i}
	}
	return r.loopGroups(ctx, n, groups, func(ctx context.Context, g int, active []int, rep int) ([][]protocol.Point, error) {
		pts, err := run(ctx, active[0], rep)
		return [][]protocol.Point{pts}, err
	})
}

// judge counts one repeat's points and says whether the job stops: "" to go on.
func (r repeater) judge(st *jobState, pts []protocol.Point) string {
	if st.counted == nil {
		st.counted = map[pointKey][]float64{}
	}
	good := 0
	for _, p := range pts {
		k := pointKey{p.Op, p.BlockSize, p.KeyBits, p.Curve}
		st.counted[k] = st.counted[k] // a point seen only failed or invalid still has to reach the target
		if p.Failed {
			continue
		}
		good++
		if validity.Invalid(p, r.limits) {
			continue
		}
		v := p.BytesPerSec
		if p.BlockSize == 0 {
			v = p.OpsPerSec
		}
		st.counted[k] = insertSorted(st.counted[k], v)
	}
	if good == 0 {
		return stopFailed
	}
	if st.widest() <= r.target {
		return stopReached
	}
	return ""
}

// insertSorted puts v in its place in the ascending vs (kept sorted as repeats arrive, instead of sorting each
// time: the agent links no sort for it).
func insertSorted(vs []float64, v float64) []float64 {
	i := len(vs)
	vs = append(vs, v)
	for i > 0 && vs[i-1] > v {
		vs[i] = vs[i-1]
		i--
	}
	vs[i] = v
	return vs
}

// loopGroups is loop over groups of jobs: in each round, run measures the jobs of one group that still need a
// repeat (active, in the group's order) together (one openssl for a series) and returns each one's points.
func (r repeater) loopGroups(ctx context.Context, n int, groups [][]int, run func(ctx context.Context, g int, active []int, rep int) ([][]protocol.Point, error)) ([]jobState, error) {
	states := make([]jobState, n)
	start := r.now()
	for rep := 0; rep < r.repeats; rep++ {
		for g, members := range groups {
			var active []int
			for _, i := range members {
				st := &states[i]
				if st.stop != "" {
					continue
				}
				if rep > 0 && r.budget > 0 && r.now().Sub(start) >= r.budget {
					st.stop = stopBudget
					continue
				}
				active = append(active, i)
			}
			if len(active) == 0 {
				continue
			}
			if err := ctx.Err(); err != nil {
				return states, fmt.Errorf("sweep: %w", err)
			}
			pts, err := run(ctx, g, active, rep)
			if err != nil {
				return states, err
			}
			for k, i := range active {
				st := &states[i]
				st.runs++
				if r.target > 0 {
					st.stop = r.judge(st, pts[k])
				}
			}
		}
	}
	for i := range states {
		if states[i].stop == "" {
			states[i].stop = stopCap
		}
	}
	return states, nil
}
