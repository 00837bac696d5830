package agent

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

func TestParsePIDStatCPU(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		want       cpuUsage
		ok         bool
	}{
		{"openssl", "4242 (openssl) R 1 4242 4242 0 -1 4194304 300 0 0 0 150 7 2 1 20 0 1 0 100 1000 100 18446744073709551615",
			cpuUsage{user: 1.52, sys: 0.08}, true},
		// the command name may hold spaces and parentheses: fields count after the last ')'
		{"odd name", "7 (a) b (c) S 1 7 7 0 -1 0 0 0 0 0 100 200 0 0 20 0 1 0", cpuUsage{user: 1, sys: 2}, true},
		{"short", "7 (x) S 1 7 7 0 -1 0 0 0 0 0 100", cpuUsage{}, false},
		{"no name", "7 x S 1", cpuUsage{}, false},
		{"not numbers", "7 (x) S 1 7 7 0 -1 0 0 0 0 0 a b c d 20 0 1 0", cpuUsage{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parsePIDStatCPU(tc.stat)
			if ok != tc.ok || math.Abs(got.user-tc.want.user) > 1e-9 || math.Abs(got.sys-tc.want.sys) > 1e-9 {
				t.Errorf("parsePIDStatCPU = %+v, %v, want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestSeriesTrackerAttribution feeds -mr lines at set times with set CPU counters: each size gets the time and
// CPU between its own +DT and +R, the start before the first +DT and the exit after the last +R go to none, a
// +DT right after a +R reuses that +R's reading, and a +R without its +DT is ignored.
func TestSeriesTrackerAttribution(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var cpu cpuUsage
	samples := 0
	tr := &seriesTracker{
		sample: func() systemSample { samples++; return systemSample{Ev: evidenceSample{tree: 10, treeOK: true}} },
		cpu:    func() (cpuUsage, bool) { return cpu, true },
	}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tr.line("+R:1:AES-128-CBC:1.0", at(0)) // before any +DT: no span
	cpu = cpuUsage{user: 0.30, sys: 0.05}  // openssl's start
	tr.line("+DT:AES-128-CBC:1:16", at(300))
	cpu = cpuUsage{user: 1.25, sys: 0.10}
	tr.line("+R:1000:AES-128-CBC:1.000000", at(1300))
	tr.line("+DT:AES-128-CBC:1:64", at(1300))
	cpu = cpuUsage{user: 1.50, sys: 0.85}
	tr.line("+R:1000:AES-128-CBC:1.000000", at(3300))
	tr.line("something else", at(3300))
	tr.line("+DT:AES-128-CBC:1:256", at(3301)) // not after a +R: read anew
	cpu = cpuUsage{user: 1.60, sys: 0.86}
	tr.line("+R:1000:AES-128-CBC:1.000000", at(3400))
	tr.line("+DT:AES-128-CBC:1:1024", at(3400)) // never ended: no span (after a +R: no reading)
	spans := tr.closedSpans()
	if len(spans) != 3 {
		t.Fatalf("%d closed spans, want 3: %+v", len(spans), spans)
	}
	want := []struct {
		size            int
		wall, user, sys float64
	}{{16, 1.0, 0.95, 0.05}, {64, 2.0, 0.25, 0.75}, {256, 0.099, 0.10, 0.01}}
	for i, w := range want {
		wall, user, sys := spans[i].times()
		if spans[i].size != w.size || math.Abs(wall-w.wall) > 1e-9 || math.Abs(user-w.user) > 1e-9 || math.Abs(sys-w.sys) > 1e-9 {
			t.Errorf("span %d = %d B wall %.3f user %.3f sys %.3f, want %d B %.3f %.3f %.3f", i, spans[i].size, wall, user, sys,
				w.size, w.wall, w.user, w.sys)
		}
	}
	// the child's CPU counts as the agent's own in the evidence (else it would be the board's background)
	if got, want := spans[1].r.sys.Ev.tree, 10+1.50+0.85; math.Abs(got-want) > 1e-9 {
		t.Errorf("tree at 64 B's +R = %v, want %v", got, want)
	}
	// one reading per +DT that did not follow a +R, one per +R
	if samples != 5 {
		t.Errorf("%d system samples, want 5 (16 B and 256 B +DT, three +R)", samples)
	}
}

func TestSeriesCommand(t *testing.T) {
	v3 := opensslVersion{Major: 3, Minor: 0, Patch: 13}
	build := func(plan protocol.Plan, v opensslVersion) []speedCommand {
		cmds, err := buildSpeedCommands("/usr/bin/openssl", v, "aarch64", plan, "cpu", "aes-128-cbc", false)
		if err != nil {
			t.Fatal(err)
		}
		return cmds
	}
	whole, why := seriesCommand(build(protocol.Plan{Seconds: 1}, v3), v3, protocol.Plan{Seconds: 1})
	if whole == nil || why != "" {
		t.Fatalf("default sizes on 3.0: no series (%q)", why)
	}
	if got, want := strings.Join(whole.Argv, " "), "/usr/bin/openssl speed -elapsed -mr -seconds 1 -evp aes-128-cbc"; got != want || whole.Size != 0 {
		t.Errorf("series command %q size %d, want %q size 0", got, whole.Size, want)
	}
	for _, tc := range []struct {
		name string
		plan protocol.Plan
		v    opensslVersion
		why  string
	}{
		{"multi", protocol.Plan{Threads: 2}, v3, "-multi 2: the sizes run in child processes"},
		{"own sizes", protocol.Plan{Sizes: []int{16, 1024}}, v3, "the plan's sizes are not openssl's default list"},
		{"reordered", protocol.Plan{Sizes: []int{64, 16, 256, 1024, 8192, 16384}}, v3, "the plan's sizes are not openssl's default list"},
		{"one size", protocol.Plan{Sizes: []int{1024}}, v3, ""},
		{"1.0", protocol.Plan{}, opensslVersion{Major: 1, Minor: 0, Patch: 2}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, why := seriesCommand(build(tc.plan, tc.v), tc.v, tc.plan)
			if whole != nil || !strings.HasPrefix(why, tc.why) || (tc.why == "") != (why == "") {
				t.Errorf("seriesCommand = %v, %q; want none, %q", whole, why, tc.why)
			}
		})
	}
}

// TestScheduleSeries puts each series' jobs in one group, in plan order, and interleaves the rest by size.
func TestScheduleSeries(t *testing.T) {
	wsoft, wcpu := &speedCommand{}, &speedCommand{}
	job := func(mode string, size int, whole *speedCommand) sweepJob {
		return sweepJob{mode: mode, alg: "aes-128-cbc", speed: &speedCommand{Size: size}, series: whole}
	}
	jobs := [][][]sweepJob{{
		{job("soft", 16, wsoft), job("soft", 64, wsoft)},
		{job("kcapi", 16, nil), job("kcapi", 64, nil)},
		{job("cpu", 16, wcpu), job("cpu", 64, wcpu)},
		{job("afalg", 16, nil), job("afalg", 64, nil)},
	}}
	order, groups := schedule(jobs)
	var got []string
	for _, g := range groups {
		var names []string
		for _, i := range g.jobs {
			names = append(names, order[i].mode+" "+strconv.Itoa(order[i].speed.Size))
		}
		got = append(got, strings.Join(names, ","))
	}
	want := []string{"soft 16,soft 64", "cpu 16,cpu 64", "kcapi 16", "afalg 16", "kcapi 64", "afalg 64"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
	if groups[0].whole != wsoft || groups[1].whole != wcpu || groups[2].whole != nil {
		t.Errorf("groups' series commands wrong: %+v", groups)
	}
}

// TestLoopGroupsRunsActive: once a job of a group has reached the target, the group's later rounds run only the
// others (each alone then, sweep_series.go), and jobs outside the group are not affected.
func TestLoopGroupsRunsActive(t *testing.T) {
	var calls [][]int
	r := repeater{repeats: 4, target: 1, now: time.Now}
	vals := map[int][]float64{0: {100, 100, 100, 100}, 1: {100, 150, 60, 130}, 2: {100, 100, 100, 100}}
	states, err := r.loopGroups(context.Background(), 3, [][]int{{0, 1}, {2}},
		func(ctx context.Context, g int, active []int, rep int) ([][]protocol.Point, error) {
			calls = append(calls, slices.Clone(active))
			out := make([][]protocol.Point, len(active))
			for k, i := range active {
				out[k] = []protocol.Point{{BlockSize: 16, BytesPerSec: vals[i][rep]}}
			}
			return out, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	// 6 equal repeats reach ±1 %; with 4 repeats none does: every job runs every round
	want := [][]int{{0, 1}, {2}, {0, 1}, {2}, {0, 1}, {2}, {0, 1}, {2}}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls %v, want %v", calls, want)
	}
	for i, st := range states {
		if st.runs != 4 || st.stop != stopCap {
			t.Errorf("job %d: %d runs, stop %q; want 4, cap", i, st.runs, st.stop)
		}
	}
	calls = nil
	r.repeats = 8
	vals = map[int][]float64{0: {100, 100, 100, 100, 100, 100, 100, 100}, 1: {100, 150, 60, 130, 70, 140, 90, 120},
		2: {100, 100, 100, 100, 100, 100, 100, 100}}
	states, err = r.loopGroups(context.Background(), 3, [][]int{{0, 1}, {2}},
		func(ctx context.Context, g int, active []int, rep int) ([][]protocol.Point, error) {
			calls = append(calls, slices.Clone(active))
			out := make([][]protocol.Point, len(active))
			for k, i := range active {
				out[k] = []protocol.Point{{BlockSize: 16, BytesPerSec: vals[i][rep]}}
			}
			return out, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if states[0].stop != stopReached || states[1].stop != stopCap || states[2].stop != stopReached {
		t.Fatalf("stops %q %q %q, want reached, cap, reached", states[0].stop, states[1].stop, states[2].stop)
	}
	if last := calls[len(calls)-1]; !reflect.DeepEqual(last, []int{1}) {
		t.Errorf("last call %v, want job 1 alone (job 0 reached its target)", last)
	}
}

// TestSweepSeriesFake runs a series of the default sizes with the fake openssl: one process, one raw output
// every point references, each point's wall and system time its own size's (one size sleeps, another spends
// system CPU), openssl's start and exit in none of them; and a custom size list still one process per size.
func TestSweepSeriesFake(t *testing.T) {
	plan := protocol.Plan{OpenSSL: writeFakeOpenSSL(t), Algorithms: []string{"aes-128-cbc"}, Modes: []string{"cpu"}, Seconds: 1,
		Env: map[string]string{"FAKE_SLEEP": "0.6", "FAKE_EXIT_SLEEP": "0.6", "FAKE_SIZE_SLEEP": "0.05",
			"FAKE_SLOW_SIZE": "1024", "FAKE_SLOW_SLEEP": "0.7", "FAKE_SYS_SIZE": "8192", "FAKE_SYS_MIB": "3000"}}
	var out bytes.Buffer
	if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
		t.Fatal(err)
	}
	var raws []*protocol.Raw
	points := map[int]*protocol.Point{}
	var logs []string
	for _, m := range decodeAll(t, out.Bytes()) {
		switch m.Type {
		case protocol.TypeRaw:
			raws = append(raws, m.Raw)
		case protocol.TypePoint:
			points[m.Point.BlockSize] = m.Point
		case protocol.TypeLog:
			logs = append(logs, m.Log.Msg)
		case protocol.TypeError:
			t.Errorf("error line: %s", m.Error)
		}
	}
	if len(raws) != 1 || len(points) != 6 {
		t.Fatalf("%d openssl runs, %d points; want 1 run, 6 points", len(raws), len(points))
	}
	if slices.Contains(raws[0].Command, "-bytes") {
		t.Errorf("series command %q has -bytes", raws[0].Command)
	}
	if !slices.ContainsFunc(logs, func(s string) bool { return strings.Contains(s, "one process for each of 1 series") }) {
		t.Errorf("logs %q: none says the series ran as one process", logs)
	}
	for _, size := range protocol.DefaultSizes {
		p := points[size]
		if p == nil {
			t.Fatalf("no %d B point", size)
		}
		if p.RawID != raws[0].ID || !slices.ContainsFunc(p.Flags, func(f string) bool { return strings.HasPrefix(f, "accounting-per-size:") }) ||
			slices.ContainsFunc(p.Flags, func(f string) bool { return strings.HasPrefix(f, "accounting-split:") }) {
			t.Errorf("%d B point raw %d flags %q: want raw %d, accounting-per-size and not split", size, p.RawID, p.Flags, raws[0].ID)
		}
		if p.Evidence == nil || p.Evidence.BackgroundPct == nil && !slices.ContainsFunc(p.Evidence.Unknown, func(s string) bool { return strings.Contains(s, "background") }) {
			t.Errorf("%d B point: no evidence of its own: %+v", size, p.Evidence)
		}
		switch size {
		case 1024: // slept 0.75 s between its lines
			if p.WallS < 0.7 || p.WallS > 3 {
				t.Errorf("1024 B wall %.3f s, want its own 0.75 s", p.WallS)
			}
		default: // 0.05 s; the 0.6-s start and exit and the slow size are not in it. The walls are timed by
			// the lines' arrival: on a loaded machine a late reader takes +DT and +R together, so only the
			// upper bound is the machine's to keep
			if p.WallS <= 0 || p.WallS > 0.55 {
				t.Errorf("%d B wall %.3f s, want its own 0.05 s (start, exit and 1024 B elsewhere)", size, p.WallS)
			}
		}
		if size != 8192 && p.SysS > points[8192].SysS/2 {
			t.Errorf("%d B sys %.2f s, want well under 8192 B's %.2f s (only 8192 B read /dev/zero)", size, p.SysS, points[8192].SysS)
		}
	}
	if points[8192].SysS < 0.05 {
		t.Errorf("8192 B sys %.3f s: the 3000 MiB read from /dev/zero was not its own", points[8192].SysS)
	}

	// a custom size list: one process per size, said once
	plan.Sizes, plan.Env = []int{16, 64}, nil
	out.Reset()
	if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
		t.Fatal(err)
	}
	raws, logs = nil, nil
	for _, m := range decodeAll(t, out.Bytes()) {
		switch m.Type {
		case protocol.TypeRaw:
			raws = append(raws, m.Raw)
		case protocol.TypeLog:
			logs = append(logs, m.Log.Msg)
		}
	}
	if len(raws) != 2 {
		t.Errorf("%d openssl runs for 2 custom sizes, want 2", len(raws))
	}
	if !slices.ContainsFunc(logs, func(s string) bool {
		return strings.Contains(s, "one process per block size for cpu aes-128-cbc: the plan's sizes")
	}) {
		t.Errorf("logs %q: none says why the custom sizes run one process each", logs)
	}
}
