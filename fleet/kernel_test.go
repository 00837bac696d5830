package fleet

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fleetlab/fleet/protocol"
)

func TestKernelJudge(t *testing.T) {
	k := newKernelJudge([]string{"^sysrq: HELP"})
	if h := k.result(); h.Health != protocol.HealthUnknown {
		t.Errorf("before any report: health %q, want unknown", h.Health)
	}
	before := []protocol.CryptoAlg{
		{Name: "cbc(aes)", Driver: "cbc-aes-sa2ul", Priority: 30000, Selftest: "unknown"},
		{Name: "cbc(aes)", Driver: "cbc-aes-ce", Priority: 300, Selftest: "passed"},
		{Name: "sha256", Driver: "sha256-ce", Priority: 200, Selftest: "passed"},
	}
	k.setFacts(&protocol.Facts{BootID: "b1", ProcCrypto: before})
	k.report(protocol.Kernel{Phase: "before", Source: protocol.KernelSourceKmsg, Now: 100})
	k.begin(protocol.Begin{Mode: "afalg", Algorithm: "aes-128-cbc", BlockSize: 8192})
	p := protocol.Point{Mode: "afalg", Algorithm: "aes-128-cbc", BlockSize: 8192, Driver: "cbc-aes-ce",
		Kernel: []protocol.KernelLine{{Text: "sysrq: HELP : loglevel(0-9)"}, {Text: "random: crng init done"}}}
	k.point(&p)
	if p.Kernel != nil {
		t.Errorf("point keeps its kernel lines: %v", p.Kernel)
	}
	if len(p.Flags) != 1 || p.Flags[0] != "kernel-log: sysrq: HELP : loglevel(0-9)" {
		t.Errorf("point flags %q, want the matched line", p.Flags)
	}
	if b := k.lostDuring(); b == nil || b.Label() != "afalg aes-128-cbc 8192 B" {
		t.Errorf("lostDuring = %+v, want the job begun", b)
	}
	after := slices.Clone(before)
	after = append(after, protocol.CryptoAlg{Name: "sha256", Driver: "sha256-virtio", Priority: 500, Selftest: "passed"})
	k.point(&protocol.Point{Mode: "kcapi", Algorithm: "sha256", BlockSize: 16, Driver: "sha256-ce"})
	k.report(protocol.Kernel{Phase: "after", Source: protocol.KernelSourceKmsg, ProcCrypto: after,
		Lines: []protocol.KernelLine{{Text: "WARNING: CPU: 1 PID: 231 at crypto/skcipher.c:454 skcipher_walk_first+0x11c/0x130"}}})
	if k.lostDuring() != nil {
		t.Errorf("the sweep's end leaves a job in flight")
	}
	h := k.result()
	if h.Health != protocol.HealthProblems || len(h.Lines) != 2 {
		t.Fatalf("health %+v, want problems with 2 lines", h)
	}
	if l := h.Lines[0]; l.Pattern != "^sysrq: HELP" || l.During != "afalg aes-128-cbc 8192 B" {
		t.Errorf("line 0 = %+v", l)
	}
	if l := h.Lines[1]; l.Pattern != "warning" || l.Fatal || l.During != "the end of the sweep" {
		t.Errorf("line 1 = %+v", l)
	}
	want := []string{
		"cbc(aes): cbc-aes-sa2ul has not passed its self-test (selftest: unknown); afalg measured cbc-aes-ce",
		"sha256: the kernel's driver changed during the sweep from sha256-ce to sha256-virtio; kcapi measured sha256-ce",
	}
	if !slices.Equal(h.Drivers, want) {
		t.Errorf("drivers:\n%q\nwant\n%q", h.Drivers, want)
	}
	if k.fatalLine() != "" {
		t.Errorf("fatal line %q from a warning", k.fatalLine())
	}
	k.point(&protocol.Point{Mode: "cpu", Algorithm: "sha256", Kernel: []protocol.KernelLine{{Text: "Internal error: Oops: 0000000096000005 [#1] SMP"}}})
	if got := k.fatalLine(); got != "Internal error: Oops: 0000000096000005 [#1] SMP" {
		t.Errorf("fatal line %q", got)
	}
}

func TestKernelJudgeUnknown(t *testing.T) {
	k := newKernelJudge(nil)
	why := "/dev/kmsg: permission denied; dmesg -r: exit status 1: dmesg: read kernel buffer failed: Operation not permitted (kernel.dmesg_restrict = 1: only root, or CAP_SYSLOG, may read the log)"
	k.report(protocol.Kernel{Phase: "before", Unknown: why})
	k.report(protocol.Kernel{Phase: "after", Unknown: why})
	if h := k.result(); h.Health != protocol.HealthUnknown || h.Reason != why {
		t.Errorf("health %+v, want unknown with the reason", h)
	}
}

func TestParseBootState(t *testing.T) {
	out := "002f4064-6f01-4cd6-8c65-458e7ca84618\n==pstore /sys/fs/pstore/dmesg-ramoops-0\nPanic#1 Part1\n" +
		"<6>[   15.058084] sysrq: HELP : loglevel(0-9)\n<6>[   16.100000] sysrq: Trigger a crash\n" +
		"<0>[   16.122270] Kernel panic - not syncing: sysrq triggered crash\n<2>[   16.122300] CPU: 0 PID: 231 Comm: sh\n"
	s := parseBootState(out)
	if s.bootID != "002f4064-6f01-4cd6-8c65-458e7ca84618" {
		t.Errorf("boot id %q", s.bootID)
	}
	if len(s.panic) != 5 {
		t.Fatalf("panic lines %+v", s.panic)
	}
	if got, want := panicExcerpt(s.panic), "sysrq: Trigger a crash\nKernel panic - not syncing: sysrq triggered crash\nCPU: 0 PID: 231 Comm: sh"; got != want {
		t.Errorf("excerpt %q, want %q", got, want)
	}
	if s := parseBootState("not an id at all\n"); s.bootID != "" {
		t.Errorf("boot id %q from a line with spaces", s.bootID)
	}
}

func TestRestPlans(t *testing.T) {
	plan := protocol.Plan{Algorithms: []string{"a1", "a2", "a3"}, Modes: []string{"cpu", "afalg", "kcapi"}, Repeats: 1}
	got := restPlans(plan, protocol.Begin{Mode: "afalg", Algorithm: "a2"}, nil)
	if len(got) != 2 || !slices.Equal(got[0].Algorithms, []string{"a2"}) || !slices.Equal(got[0].Modes, []string{"cpu", "kcapi"}) ||
		!slices.Equal(got[1].Algorithms, []string{"a3"}) || !slices.Equal(got[1].Modes, plan.Modes) {
		t.Errorf("restPlans = %+v", got)
	}
	plan.Repeats = 3 // repeats go over the whole sweep: the algorithms before the lost one are not done
	got = restPlans(plan, protocol.Begin{Mode: "cpu", Algorithm: "a3"}, nil)
	if len(got) != 2 || !slices.Equal(got[1].Algorithms, []string{"a1", "a2"}) {
		t.Errorf("restPlans with repeats = %+v", got)
	}
	if got := restPlans(protocol.Plan{Algorithms: []string{"a"}, Modes: []string{"cpu"}}, protocol.Begin{Mode: "cpu", Algorithm: "a"}, nil); len(got) != 0 {
		t.Errorf("nothing left: %+v", got)
	}
	// a1 and a2 were measured by the command lost during a3 (the public-key algorithms of a mode in one
	// openssl): their points were lost with it, in that mode only
	plan.Repeats = 1
	got = restPlans(plan, protocol.Begin{Mode: "afalg", Algorithm: "a3", Joined: true},
		[]protocol.Begin{{Mode: "afalg", Algorithm: "a1"}, {Mode: "afalg", Algorithm: "a2", Joined: true}})
	if len(got) != 2 || !slices.Equal(got[0].Algorithms, []string{"a3"}) || !slices.Equal(got[1].Algorithms, []string{"a1", "a2"}) ||
		!slices.Equal(got[1].Modes, []string{"afalg"}) {
		t.Errorf("restPlans after a joined job = %+v", got)
	}
}

// TestKernelJudgeLostWith: the jobs a command measured before the one in flight are lost with it until its
// points arrive; a Begin of its own starts a new command.
func TestKernelJudgeLostWith(t *testing.T) {
	var k kernelJudge
	k.begin(protocol.Begin{Mode: "cpu", Algorithm: "rsa2048"})
	k.begin(protocol.Begin{Mode: "cpu", Algorithm: "ecdsap256", Joined: true})
	k.begin(protocol.Begin{Mode: "cpu", Algorithm: "ed25519", Joined: true})
	if got := k.lostWith(); len(got) != 2 || got[0].Algorithm != "rsa2048" || got[1].Algorithm != "ecdsap256" || k.lostDuring().Algorithm != "ed25519" {
		t.Errorf("lost during %+v with %+v, want ed25519 with rsa2048, ecdsap256", k.lostDuring(), got)
	}
	k.point(&protocol.Point{Mode: "cpu", Algorithm: "rsa", Op: "sign"})
	if got := k.lostWith(); len(got) != 0 {
		t.Errorf("after the command's points: lost with %+v, want none", got)
	}
	k.begin(protocol.Begin{Mode: "soft", Algorithm: "rsa2048"})
	k.begin(protocol.Begin{Mode: "soft", Algorithm: "sha256"})
	if got := k.lostWith(); len(got) != 0 {
		t.Errorf("a Begin of its own: lost with %+v, want none", got)
	}
}

// FuzzBootState feeds the boot check's parser what a board could print after it came back.
func FuzzBootState(f *testing.F) {
	f.Add("002f4064-6f01-4cd6-8c65-458e7ca84618\n==pstore /sys/fs/pstore/dmesg-ramoops-0\nPanic#1 Part1\n<0>[   16.122270] Kernel panic - not syncing: sysrq triggered crash\n")
	f.Add("\n==pstore x\n\n")
	f.Add("\xff\n==pstore \n<9999>[1.1] Oops")
	f.Fuzz(func(t *testing.T, out string) {
		s := parseBootState(out)
		if len(s.bootID) > 64 || strings.ContainsAny(s.bootID, " \t\n") {
			t.Fatalf("boot id %q", s.bootID)
		}
		ex := panicExcerpt(s.panic)
		if len(ex) > 4096+protocol.MaxKernelLineBytes || !utf8.ValidString(ex) {
			t.Fatalf("excerpt of %d bytes, valid %v", len(ex), utf8.ValidString(ex))
		}
	})
}
