package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// The public-key algorithms of one mode are measured by one openssl where the output allows it: `openssl speed
// -mr rsa2048 ecdsap256 ed25519` announces each operation with a "+DTP:BITS:OP:NAME:SECONDS" line on stderr and
// ends it with a "+Rn:COUNT:BITS[:CURVE]:SECONDS" line, both unbuffered, so each operation (rsa sign, rsa
// verify, ...) gets its own wall, user and system time from the lines (sweep_series_child.go), as a series'
// sizes do, and openssl's start, its key set-up and its exit are paid once per mode instead of once per
// algorithm. The same conditions as a series hold (OpenSSL 1.1.1 or later for -seconds, no -multi, not the shell
// path), and only algorithms whose +DTP lines name them apart are grouped (one key size per algorithm, one
// curve per name). A group that does not give every algorithm its points (an algorithm this openssl refuses
// makes it exit before measuring) is said once and its algorithms then run one process each, for the rest of
// the sweep.

// flagOpAccounts marks the points of a public-key group run: their times are each operation's own.
const flagOpAccounts = "accounting-per-op: one openssl run measured %d operations of %d public-key algorithms; each " +
	"point's wall, user and sys run from its +DTP line to its +R line, openssl's start, key set-up and exit are in none"

// asymIdentity is how openssl's lines name an algorithm of a group: the stored algorithm, key bits and curve
// (opensslspeed.AsymName).
type asymIdentity struct {
	alg   string
	bits  int
	curve string
}

func asymIdentityOf(name string) (asymIdentity, bool) {
	a, bits, curve, ok := opensslspeed.AsymName(name)
	return asymIdentity{a, bits, curve}, ok && bits > 0
}

// names reports whether a +DTP line's fields (+DTP:BITS:OP:NAME:SECONDS) are this algorithm's: "+DTP:2048:
// private:rsa:1" is rsa2048's, "+DTP:256:sign:ecdsa:1" ecdsap256's, "+DTP:253:sign:Ed25519:1" ed25519's.
func (id asymIdentity) names(f []string) bool {
	name := strings.ToLower(f[3])
	if id.curve != "" && name == id.curve {
		return true
	}
	return name == id.alg && f[1] == fmt.Sprint(id.bits)
}

// owns reports whether p, a parsed point, is this algorithm's.
func (id asymIdentity) owns(p protocol.Point) bool {
	return p.Algorithm == id.alg && p.KeyBits == id.bits && (id.curve == "" || p.Curve == id.curve)
}

// groupAsym gives the public-key jobs of each cell (one mode on one target) one command measuring them all,
// where two or more can share one (see above); v is the board's openssl.
func (s *sweepState) groupAsym(jobs [][][]sweepJob, v *opensslVersion) {
	if v == nil || !v.atLeast(1, 1, 1) || s.plan.Threads > 1 || s.remote != nil || len(jobs) < 2 {
		return
	}
	for cell := range jobs[0] {
		var members []*sweepJob
		var ids []asymIdentity
		for ai := range jobs {
			list := jobs[ai][cell]
			if len(list) != 1 || list[0].speed == nil || list[0].speed.Size != 0 {
				continue
			}
			j := &list[0]
			id, ok := asymIdentityOf(j.alg)
			args, asym, err := opensslspeed.Args(j.alg)
			if !ok || !asym || err != nil || !slices.Equal(j.speed.Argv[max(len(j.speed.Argv)-len(args), 0):], args) ||
				slices.ContainsFunc(ids, func(o asymIdentity) bool {
					return o.alg == id.alg && o.bits == id.bits || id.curve != "" && o.curve == id.curve
				}) {
				continue
			}
			if len(members) > 0 && !sameAsymBase(members[0], j) {
				continue
			}
			members = append(members, j)
			ids = append(ids, id)
		}
		if len(members) < 2 {
			continue
		}
		first := members[0].speed
		algs := make([]string, len(members))
		for k, j := range members {
			algs[k] = j.alg
		}
		c := asymCommand(first, first.Argv[:len(first.Argv)-len(args0(members[0]))], algs)
		for _, j := range members {
			j.series = c
		}
	}
}

// asymSubset is the group command c for jobs, some of its algorithms in its order: c itself when they are all.
func asymSubset(c *speedCommand, jobs []sweepJob) *speedCommand {
	if len(jobs) == len(c.Algs) {
		return c
	}
	n := 0
	for _, alg := range c.Algs {
		args, _, _ := opensslspeed.Args(alg)
		n += len(args)
	}
	algs := make([]string, len(jobs))
	for k := range jobs {
		algs[k] = jobs[k].alg
	}
	return asymCommand(c, c.Argv[:len(c.Argv)-n], algs)
}

// asymCommand is c measuring algs: its options base (openssl to the last option) and each algorithm's arguments.
func asymCommand(c *speedCommand, base []string, algs []string) *speedCommand {
	g := *c
	g.Argv, g.Algs = slices.Clone(base), slices.Clone(algs)
	for _, alg := range algs {
		args, _, _ := opensslspeed.Args(alg)
		g.Argv = append(g.Argv, args...)
	}
	return &g
}

// args0 is the algorithm's own arguments at the end of j's command.
func args0(j *sweepJob) []string {
	args, _, _ := opensslspeed.Args(j.alg)
	return args
}

// sameAsymBase reports whether b's command is a's but for the algorithm's own arguments at its end: the same
// openssl, options, environment, engine, flags and CPUs.
func sameAsymBase(a, b *sweepJob) bool {
	ca, cb := a.speed, b.speed
	na, nb := len(args0(a)), len(args0(b))
	return a.mode == b.mode && a.pin == b.pin && len(ca.Argv) >= na && len(cb.Argv) >= nb &&
		slices.Equal(ca.Argv[:len(ca.Argv)-na], cb.Argv[:len(cb.Argv)-nb]) && slices.Equal(ca.Env, cb.Env) &&
		ca.Engine == cb.Engine && ca.Decrypt == cb.Decrypt && ca.Seconds == cb.Seconds && slices.Equal(ca.Flags, cb.Flags)
}

// runAsymGroup measures the public-key jobs (all of a group, in its order) with the group's command c as repeat
// rep, and returns each one's points. Each job's Begin goes to the controller when openssl reaches it (its first
// +DTP line), so a board lost mid-run is lost during the right algorithm. When the run does not give every job
// its points, nothing of it is sent: the failure is said once and every job runs alone, now and for the rest of
// the sweep.
func (s *sweepState) runAsymGroup(ctx context.Context, jobs []sweepJob, c *speedCommand, rep int) ([][]protocol.Point, error) {
	ids := make([]asymIdentity, len(jobs))
	for k, j := range jobs {
		ids[k], _ = asymIdentityOf(j.alg)
	}
	s.sent = s.sent[:0]
	if err := s.enc.Encode(protocol.TypeBegin, jobs[0].begin(rep)); err != nil {
		return nil, err
	}
	run, err := s.runAsymChild(ctx, jobs, ids, c, rep)
	if err != nil {
		return nil, err
	}
	points, owner, why := asymOwners(run.res, c, ids, jobs, s.facts.OpenSSLVersion)
	if why != "" {
		return s.asymAlone(ctx, jobs, c, rep, why)
	}
	return s.sendAsymPoints(ctx, jobs, c, rep, run, points, owner)
}

// asymRun is what the agent read of one group run.
type asymRun struct {
	res           childResult
	spans         []sizeSpan
	before, after systemSample
	pin           *pinnedRun
}

// runAsymChild runs c, sending a joined Begin whenever a +DTP line names another of jobs (ids in their order).
func (s *sweepState) runAsymChild(ctx context.Context, jobs []sweepJob, ids []asymIdentity, c *speedCommand, rep int) (asymRun, error) {
	runCtx, cancel := context.WithTimeout(ctx, speedTimeout(c))
	defer cancel()
	r := asymRun{pin: s.pinnedRun(jobs[0])}
	r.before = s.sampleSystem()
	beforeCPUs := r.pin.sample(s.root)
	current := 0
	var encErr error
	onDTP := func(f []string) {
		k := slices.IndexFunc(ids, func(id asymIdentity) bool { return id.names(f) })
		if k >= 0 && k != current && encErr == nil {
			b := jobs[k].begin(rep)
			b.Joined = true
			encErr = s.enc.Encode(protocol.TypeBegin, b)
		}
		if k >= 0 {
			current = k
		}
	}
	r.res, r.spans = runSeriesChild(runCtx, c.Argv, c.Env, s.root, s.sampleSystem, r.pin, onDTP)
	r.pin.finish(s.root, beforeCPUs)
	r.after = s.sampleSystem()
	if encErr != nil {
		return r, encErr
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("sweep: %w", ctx.Err())
	}
	return r, nil
}

// asymOwners parses a group run's output into its points and the job each belongs to (owner, into jobs), or
// says why the run cannot stand for its jobs: it failed, openssl reported a failure (which one algorithm's is
// not told apart), a point is none of the algorithms asked, or an algorithm has no point.
func asymOwners(res childResult, c *speedCommand, ids []asymIdentity, jobs []sweepJob, version string) (points []protocol.Point, owner []int, why string) {
	runs, perr := opensslspeed.Parse(res.Stderr+"\n"+res.Stdout, opensslspeed.Hint{Command: c.Argv, Seconds: c.Seconds, Version: version})
	for _, r := range runs {
		points = append(points, r.Points...)
		if r.Failed != "" && why == "" {
			why = "openssl reported a failure: " + r.Failed
		}
	}
	owner = make([]int, len(points))
	got := make([]bool, len(jobs))
	for i, p := range points {
		if why != "" {
			break
		}
		owner[i] = slices.IndexFunc(ids, func(id asymIdentity) bool { return id.owns(p) })
		if owner[i] < 0 {
			why = fmt.Sprintf("a point of %s %d bits %s is none of the algorithms asked", p.Algorithm, p.KeyBits, p.Curve)
			break
		}
		got[owner[i]] = true
	}
	if k := slices.Index(got, false); why == "" && k >= 0 {
		why = "no point of " + jobs[k].alg
	}
	switch {
	case res.Err != nil:
		why = res.Err.Error()
	case res.Exit != 0:
		why = fmt.Sprintf("exit %d: %s", res.Exit, firstErrorLine(res.Stderr))
	case why != "" && perr != nil:
		why += "; parse: " + perr.Error()
	}
	return points, owner, why
}

// sendAsymPoints sends a good group run's raw output and its points, each labelled and judged as its own job's
// and accounted from its operation's span (divided when none matches), and returns each job's points.
func (s *sweepState) sendAsymPoints(ctx context.Context, jobs []sweepJob, c *speedCommand, rep int, run asymRun, points []protocol.Point, owner []int) ([][]protocol.Point, error) {
	res := run.res
	s.rawID++
	raw := protocol.Raw{ID: s.rawID, Command: c.Argv, Env: c.Env, Stdout: res.Stdout, Stderr: res.Stderr, Exit: res.Exit}
	if err := s.enc.Encode(protocol.TypeRaw, &raw); err != nil {
		return nil, err
	}
	failure := engineFallback(c.Engine, res.Stdout, res.Stderr)
	verdicts := make([]*speedVerdict, len(jobs))
	used := make([]bool, len(run.spans))
	out := make([][]protocol.Point, len(jobs))
	for i := range points {
		p, k := &points[i], owner[i]
		j := jobs[k]
		j.speed = c
		if verdicts[k] == nil {
			v := s.judgeSpeedCommand(ctx, j, failure)
			v.rawID = raw.ID
			verdicts[k] = &v
		}
		s.labelOpenSSLPoint(p, j, rep, *verdicts[k])
		if sp := opSpan(run.spans, used, *p); sp != nil {
			wall, user, sys := sp.times()
			p.Flags = append(p.Flags, fmt.Sprintf(flagOpAccounts, len(points), len(jobs)))
			setAccounting(p, wall, user, sys, sp.dt.sys, sp.r.sys)
			run.pin.mark(p)
			s.window(p, sp.dt.sys, sp.r.sys, false)
		} else {
			splitAccounting(p, len(points), res, run.before, run.after)
			run.pin.mark(p)
			s.window(p, run.before, run.after, len(points) > 1)
		}
		s.judgeOpenSSLPoint(p, j.alg, *verdicts[k])
		if err := s.point(p); err != nil {
			return nil, err
		}
		out[k] = append(out[k], *p)
	}
	return out, nil
}

// opSpan is the operation span of p's +Rn line, marking it used: the span whose +R line is the point's line
// with the point's count, else the first unused one with the point's count; nil when none is.
func opSpan(spans []sizeSpan, used []bool, p protocol.Point) *sizeSpan {
	k := slices.IndexFunc(spans, func(sp sizeSpan) bool { return sp.size == 0 && sp.rLine == p.Line && float64(sp.count) == p.Count })
	if k < 0 || used[k] {
		k = -1
		for i, sp := range spans {
			if !used[i] && sp.size == 0 && float64(sp.count) == p.Count {
				k = i
				break
			}
		}
	}
	if k < 0 {
		return nil
	}
	used[k] = true
	return &spans[k]
}

// asymAlone runs each job of a failed group alone as repeat rep, after saying once why the group failed; the
// rest of the sweep runs its public-key algorithms one process each.
func (s *sweepState) asymAlone(ctx context.Context, jobs []sweepJob, c *speedCommand, rep int, why string) ([][]protocol.Point, error) {
	if !s.asymFailed {
		s.asymFailed = true
		msg := fmt.Sprintf("openssl: %s in one run did not give each its points (%s): each public-key algorithm runs "+
			"in its own openssl from now on", strings.Join(c.Algs, ", "), why)
		if err := s.enc.Encode(protocol.TypeLog, &protocol.Log{Level: "warn", Msg: msg}); err != nil {
			return nil, err
		}
	}
	return s.runEach(ctx, jobs, rep)
}
