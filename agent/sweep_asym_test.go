package agent

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestSeriesTrackerOperations feeds a public-key run's -mr lines: each operation gets the time and CPU between
// its own +DTP and +Rn lines (the key set-up between two operations is in neither: a +DTP is read anew), the
// +R line's number and count are kept for matching the parsed points, onDTP hears each +DTP, and lines that do
// not fit (a symmetric +R on an operation, a +Rn without a number) end nothing.
func TestSeriesTrackerOperations(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var cpu cpuUsage
	samples := 0
	var heard []string
	tr := &seriesTracker{
		sample: func() systemSample { samples++; return systemSample{} },
		cpu:    func() (cpuUsage, bool) { return cpu, true },
		onDTP:  func(f []string) { heard = append(heard, f[3]+" "+f[2]) },
	}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	lines := []struct {
		ms   int
		user float64
		l    string
	}{
		{300, 0.30, "+DTP:2048:private:rsa:1"}, // line 1
		{1300, 1.30, "+R1:191:2048:1.00"},      // 2
		{1300, 1.30, "+DTP:2048:public:rsa:1"}, // 3
		{2300, 2.20, "+R2:8769:2048:1.00"},     // 4
		{2400, 2.30, "+DTP:256:sign:ecdsa:1"},  // 5: after 0.1 s of key set-up
		{2400, 2.30, "+R:5:ECDSA:1.00"},        // 6: a size's +R on an operation: ignored
		{2400, 2.30, "+Rx:5:256:1.00"},         // 7: not a number after +R: ignored
		{3400, 3.25, "+R5:4445:256:1.00"},      // 8
		{3400, 3.25, "+DTP:253:sign:Ed25519"},  // 9: too short: no span
		{3500, 3.30, "+DTP:253:sign:Ed25519:1"},
		{4500, 4.30, "+R8:4183:253:Ed25519:1.00"}, // 11
	}
	for _, l := range lines {
		cpu = cpuUsage{user: l.user}
		tr.line(l.l, at(l.ms))
	}
	spans := tr.closedSpans()
	want := []struct {
		wall, user   float64
		rLine, count int
	}{{1.0, 1.0, 2, 191}, {1.0, 0.9, 4, 8769}, {1.0, 0.95, 8, 4445}, {1.0, 1.0, 11, 4183}}
	if len(spans) != len(want) {
		t.Fatalf("%d spans, want %d: %+v", len(spans), len(want), spans)
	}
	for i, w := range want {
		wall, user, _ := spans[i].times()
		if sp := spans[i]; sp.size != 0 || math.Abs(wall-w.wall) > 1e-9 || math.Abs(user-w.user) > 1e-9 || sp.rLine != w.rLine || sp.count != w.count {
			t.Errorf("span %d: size %d wall %.3f user %.3f line %d count %d; want 0, %.3f, %.3f, %d, %d", i, sp.size, wall, user,
				sp.rLine, sp.count, w.wall, w.user, w.rLine, w.count)
		}
	}
	if w := []string{"rsa private", "rsa public", "ecdsa sign", "Ed25519 sign"}; !reflect.DeepEqual(heard, w) {
		t.Errorf("onDTP heard %q, want %q", heard, w)
	}
	if samples != 8 {
		t.Errorf("%d system samples, want 8 (each +DTP and +Rn read anew)", samples)
	}
}

// TestGroupAsym gives the public-key jobs of each mode one command (the same options, every algorithm's
// arguments), keeps out what its lines could not tell apart (a second 256-bit ecdsa) and what is not public-key,
// and schedule puts each group's jobs together at its first algorithm.
func TestGroupAsym(t *testing.T) {
	v3 := &opensslVersion{Major: 3, Minor: 0, Patch: 13}
	plan := protocol.Plan{Seconds: 1, Algorithms: []string{"aes-128-cbc", "rsa2048", "ecdsap256", "ecdsabrp256r1", "ed25519"}}
	modes := []string{"soft", "cpu"}
	jobs := make([][][]sweepJob, len(plan.Algorithms))
	for ai, alg := range plan.Algorithms {
		jobs[ai] = make([][]sweepJob, len(modes))
		for mi, mode := range modes {
			cmds, err := buildSpeedCommands("/usr/bin/openssl", *v3, "aarch64", plan, mode, alg, false)
			if err != nil {
				t.Fatal(err)
			}
			for i := range cmds {
				jobs[ai][mi] = append(jobs[ai][mi], sweepJob{mode: mode, alg: alg, speed: &cmds[i]})
			}
		}
	}
	s := &sweepState{plan: plan}
	s.groupAsym(jobs, v3)
	for mi, mode := range modes {
		c := jobs[1][mi][0].series
		if c == nil || jobs[2][mi][0].series != c || jobs[4][mi][0].series != c {
			t.Fatalf("%s: rsa2048, ecdsap256 and ed25519 do not share one command", mode)
		}
		if jobs[3][mi][0].series != nil || jobs[0][mi][0].series != nil {
			t.Errorf("%s: ecdsabrp256r1 (a second 256-bit ecdsa) or aes-128-cbc was grouped", mode)
		}
		wantArgv := strings.Join(jobs[1][mi][0].speed.Argv, " ") + " ecdsap256 ed25519"
		if got := strings.Join(c.Argv, " "); got != wantArgv || !reflect.DeepEqual(c.Algs, []string{"rsa2048", "ecdsap256", "ed25519"}) {
			t.Errorf("%s: group command %q algs %q, want %q", mode, got, c.Algs, wantArgv)
		}
	}
	if mode0, mode1 := jobs[1][0][0].series, jobs[1][1][0].series; mode0 == mode1 || strings.Join(mode0.Env, ",") != "OPENSSL_armcap=0" {
		t.Errorf("soft and cpu share a command, or soft's lost its environment: %q", mode0.Env)
	}
	order, groups := schedule(jobs)
	var got []string
	for _, g := range groups {
		var names []string
		for _, i := range g.jobs {
			names = append(names, order[i].mode+" "+order[i].alg)
		}
		got = append(got, strings.Join(names, ","))
	}
	want := []string{"soft aes-128-cbc", "cpu aes-128-cbc", // the series of aes-128-cbc in one group each
		"soft rsa2048,soft ecdsap256,soft ed25519", "cpu rsa2048,cpu ecdsap256,cpu ed25519",
		"soft ecdsabrp256r1", "cpu ecdsabrp256r1"}
	if len(got) < 2 || !reflect.DeepEqual(got[len(got)-4:], want[2:]) {
		t.Errorf("groups %q, want the public-key ones %q", got, want[2:])
	}

	// the algorithms still repeating (ed25519 reached its target): one openssl for them
	c := jobs[1][1][0].series
	sub := asymSubset(c, []sweepJob{jobs[1][1][0], jobs[2][1][0]})
	if got, want := strings.Join(sub.Argv, " "), strings.Join(jobs[1][1][0].speed.Argv, " ")+" ecdsap256"; got != want ||
		!reflect.DeepEqual(sub.Algs, []string{"rsa2048", "ecdsap256"}) || len(c.Algs) != 3 {
		t.Errorf("subset command %q algs %q, want %q (and the group's own unchanged: %q)", got, sub.Algs, want, c.Algs)
	}
	if asymSubset(c, []sweepJob{jobs[1][1][0], jobs[2][1][0], jobs[4][1][0]}) != c {
		t.Error("the whole group's subset is not its own command")
	}

	// not grouped: OpenSSL 1.1.0 (no -seconds), -multi, and the shell path
	for _, tc := range []struct {
		name string
		v    *opensslVersion
		s    *sweepState
	}{
		{"1.1.0", &opensslVersion{Major: 1, Minor: 1, Patch: 0}, &sweepState{plan: plan}},
		{"multi", v3, &sweepState{plan: protocol.Plan{Threads: 2}}},
		{"shell path", v3, &sweepState{plan: plan, remote: struct{ Remote }{}}},
	} {
		for ai := range jobs {
			for mi := range jobs[ai] {
				for k := range jobs[ai][mi] {
					jobs[ai][mi][k].series = nil
				}
			}
		}
		tc.s.groupAsym(jobs, tc.v)
		if jobs[1][0][0].series != nil {
			t.Errorf("%s: public-key jobs grouped", tc.name)
		}
	}
}

// TestAsymIdentity matches +DTP lines and parsed points to the plan's names.
func TestAsymIdentity(t *testing.T) {
	rsa, _ := asymIdentityOf("rsa2048")
	ec, _ := asymIdentityOf("ecdsap256")
	ed, _ := asymIdentityOf("ed25519")
	if _, ok := asymIdentityOf("rsa"); ok {
		t.Error("rsa (every key size) has an identity of its own")
	}
	for _, tc := range []struct {
		id   asymIdentity
		line string
		want bool
	}{
		{rsa, "+DTP:2048:private:rsa:1", true},
		{rsa, "+DTP:4096:private:rsa:1", false},
		{ec, "+DTP:256:verify:ecdsa:1", true},
		{ec, "+DTP:256:private:rsa:1", false},
		{ed, "+DTP:253:sign:Ed25519:1", true},
		{ed, "+DTP:456:sign:Ed448:1", false},
	} {
		if got := tc.id.names(strings.Split(tc.line, ":")); got != tc.want {
			t.Errorf("%+v names %q = %v, want %v", tc.id, tc.line, got, tc.want)
		}
	}
	if !ec.owns(protocol.Point{Algorithm: "ecdsa", KeyBits: 256, Curve: "nistp256"}) || ec.owns(protocol.Point{Algorithm: "ecdsa", KeyBits: 256, Curve: "brainpoolp256r1"}) {
		t.Error("ecdsap256 does not own its point, or owns brainpool's")
	}
}

// asymSweep runs plan with this host's openssl and returns its points by algorithm and operation, its raw
// outputs, its Begins and its log lines; an error or skip line fails the test.
func asymSweep(t *testing.T, plan protocol.Plan) (points map[string]*protocol.Point, raws int, begins []protocol.Begin, logs []string) {
	t.Helper()
	var out bytes.Buffer
	if _, err := Sweep(context.Background(), plan, protocol.NewEncoder(&out)); err != nil {
		t.Fatal(err)
	}
	points = map[string]*protocol.Point{}
	for _, m := range decodeAll(t, out.Bytes()) {
		switch m.Type {
		case protocol.TypePoint:
			points[fmt.Sprintf("%s %d %s", m.Point.Algorithm, m.Point.KeyBits, m.Point.Op)] = m.Point
		case protocol.TypeRaw:
			raws++
		case protocol.TypeBegin:
			begins = append(begins, *m.Begin)
		case protocol.TypeLog:
			logs = append(logs, m.Log.Msg)
		case protocol.TypeError, protocol.TypeSkip:
			t.Fatalf("unexpected %s: %s %+v", m.Type, m.Error, m.Skip)
		}
	}
	return points, raws, begins, logs
}

// TestSweepAsymRealOpenSSL measures rsa2048, ecdsap256 and ed25519 with this host's openssl both ways, in one
// process and one process each, and compares them: the operations per CPU-second agree within this busy
// machine's noise (a factor 1.5), each operation of the group is timed by its own -mr lines (its wall brackets
// openssl's own elapsed time, its CPU within its wall), the controller hears a Begin per algorithm as openssl
// reaches it (the later ones joined to the running command), and the group ran as one openssl.
func TestSweepAsymRealOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skipf("no openssl on this host: %v", err)
	}
	if testing.Short() {
		t.Skip("12 s of openssl")
	}
	algs := []string{"rsa2048", "ecdsap256", "ed25519"}
	plan := protocol.Plan{Algorithms: algs, Modes: []string{"cpu"}, Seconds: 1}
	group, raws, begins, logs := asymSweep(t, plan)
	if raws != 1 || len(group) != 6 {
		t.Fatalf("%d openssl runs, %d points for 3 public-key algorithms; want 1 run, 6 points", raws, len(group))
	}
	var named []string
	for _, b := range begins {
		named = append(named, fmt.Sprintf("%s %v", b.Algorithm, b.Joined))
	}
	if want := []string{"rsa2048 false", "ecdsap256 true", "ed25519 true"}; !reflect.DeepEqual(named, want) {
		t.Errorf("begins %q, want %q", named, want)
	}
	if !slices.ContainsFunc(logs, func(s string) bool { return strings.Contains(s, "public-key algorithms of each of 1 modes") }) {
		t.Errorf("logs %q: none says the public-key algorithms ran as one process", logs)
	}
	alone := map[string]*protocol.Point{}
	for _, alg := range algs {
		plan.Algorithms = []string{alg}
		pts, raws, _, _ := asymSweep(t, plan)
		if raws != 1 || len(pts) != 2 {
			t.Fatalf("%s alone: %d runs, %d points; want 1, 2", alg, raws, len(pts))
		}
		for k, p := range pts {
			alone[k] = p
		}
	}
	perCPU := func(p *protocol.Point) float64 { return p.OpsPerSec * p.Seconds / (p.UserS + p.SysS) }
	for k, g := range group {
		a := alone[k]
		if a == nil {
			t.Fatalf("%s: no point alone", k)
		}
		ratio := perCPU(g) / perCPU(a)
		t.Logf("%-18s group %.0f/s, %.0f per CPU-s (wall %.3f s, openssl %.3f s, user %.2f sys %.2f); alone %.0f/s, "+
			"%.0f per CPU-s (wall %.3f s, user %.2f sys %.2f); per CPU-s ratio %.3f", k, g.OpsPerSec, perCPU(g), g.WallS,
			g.Seconds, g.UserS, g.SysS, a.OpsPerSec, perCPU(a), a.WallS, a.UserS, a.SysS, ratio)
		if ratio < 1/1.5 || ratio > 1.5 {
			t.Errorf("%s: %.0f per CPU-second in the group against %.0f alone: beyond a factor 1.5", k, perCPU(g), perCPU(a))
		}
		if !slices.ContainsFunc(g.Flags, func(f string) bool { return strings.HasPrefix(f, "accounting-per-op:") }) {
			t.Errorf("%s: flags %q, want accounting-per-op", k, g.Flags)
		}
		if g.WallS < g.Seconds-0.15 || g.WallS > g.Seconds+0.25 {
			t.Errorf("%s: group wall %.3f s, want openssl's own %.3f s (its start, key set-up and exit in none)", k, g.WallS, g.Seconds)
		}
		if cpu := g.UserS + g.SysS; cpu <= 0 || cpu > g.WallS*1.1+0.02 {
			t.Errorf("%s: group CPU %.3f s for a wall of %.3f s: not the operation's own", k, cpu, g.WallS)
		}
	}
}

// TestSweepAsymGroupFails: an openssl that refuses the algorithms together (as one refusing any of them does)
// costs nothing but the try: the sweep says so once and measures each algorithm alone, with no error line, in
// every repeat after.
func TestSweepAsymGroupFails(t *testing.T) {
	real, err := exec.LookPath("openssl")
	if err != nil {
		t.Skipf("no openssl on this host: %v", err)
	}
	if testing.Short() {
		t.Skip("8 s of openssl")
	}
	wrapper := filepath.Join(t.TempDir(), "openssl")
	script := "#!/bin/sh\ncase \" $* \" in *\" rsa2048 ecdsap256 \"*) echo 'speed: Unknown algorithm ecdsap256' >&2; exit 1 ;; esac\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	plan := protocol.Plan{OpenSSL: wrapper, Algorithms: []string{"rsa2048", "ecdsap256"}, Modes: []string{"cpu"}, Seconds: 1, Repeats: 2}
	points, raws, begins, logs := asymSweep(t, plan)
	if len(points) != 4 || raws != 4 {
		t.Errorf("%d points from %d runs, want 4 (2 algorithms × sign, verify) from 4 (2 repeats, one run each)", len(points), raws)
	}
	warned := 0
	for _, l := range logs {
		if strings.Contains(l, "rsa2048, ecdsap256 in one run did not give each its points (exit 1: speed: Unknown algorithm") {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings of the failed group in %q, want 1", warned, logs)
	}
	for _, b := range begins {
		if b.Joined {
			t.Errorf("begin %+v joined, but every run was alone after the failure", b)
		}
	}
}
