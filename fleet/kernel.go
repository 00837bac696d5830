package fleet

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fleetlab/fleet/protocol"
)

// kernelJudge follows one board's sweep from the kernel's side: it matches the kernel lines the agent sends (with
// each point, and at the sweep's end) against the patterns, flags the points measured while a line appeared,
// remembers the job in flight (a board lost mid-sweep was lost during it) and compares /proc/crypto before and
// after. Its result is the board run's KernelHealth.
type kernelJudge struct {
	match protocol.KernelMatcher

	mu        sync.Mutex
	health    protocol.KernelHealth
	read      bool             // a kernel report said the log can be read
	inflight  *protocol.Begin  // the job started last, nil once the sweep's end was reported
	joined    []protocol.Begin // the jobs the running command measured before inflight (Begin.Joined), oldest first
	fatal     string           // the first Oops, BUG or panic line
	before    []protocol.CryptoAlg
	bootID    string
	since     int64                          // the board's clock at the sweep's start (pstore records after it are new)
	drivers   map[string]map[string][]string // kernel algorithm name → mode → drivers its points named
	reboots   int
	gaps      []kernelGap // what of the log was not read, and when (kernel_tally.go)
	otherGaps int         // reasons over maxKernelGaps
}

// newKernelJudge judges with the defaults and a board's patterns (inventory checked that they compile).
func newKernelJudge(patterns []string) *kernelJudge {
	match, _ := protocol.NewKernelMatcher(patterns)
	return &kernelJudge{match: match, health: protocol.KernelHealth{Health: protocol.HealthUnknown,
		Reason: "the agent sent no kernel report"}}
}

// flagKernel prefixes the point flag naming a kernel line that appeared while the point was measured.
const flagKernel = "kernel-log: "

// setFacts records the board's state before the sweep: its boot id and /proc/crypto.
func (k *kernelJudge) setFacts(f *protocol.Facts) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.bootID == "" {
		k.bootID = f.BootID
	}
	if k.before == nil {
		k.before = f.ProcCrypto
	}
}

func (k *kernelJudge) begin(b protocol.Begin) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if b.Joined && k.inflight != nil {
		k.joined = append(k.joined, *k.inflight)
	} else {
		k.joined = nil
	}
	k.inflight = &b
}

// lostWith are the jobs the command in flight measured before the one in flight: their points, which the agent
// sends when the command ends, were lost with it.
func (k *kernelJudge) lostWith() []protocol.Begin {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.inflight == nil {
		return nil
	}
	return slices.Clone(k.joined)
}

// lostDuring is the job in flight, nil when none is.
func (k *kernelJudge) lostDuring() *protocol.Begin {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.inflight == nil {
		return nil
	}
	b := *k.inflight
	return &b
}

// point matches the kernel lines that came with p, counts what the agent read of the log (its tally), flags p
// with the first line that matched, and drops the lines (they are stored once, with the board run).
func (k *kernelJudge) point(p *protocol.Point) {
	lines, tally := p.Kernel, p.KernelTally
	p.Kernel, p.KernelTally = nil, nil
	k.mu.Lock()
	defer k.mu.Unlock()
	k.joined = nil // the command's points are here: nothing it measured is lost with it any more
	if name := protocol.KernelAlgorithm(p.Algorithm); name != "" && p.Driver != "" {
		if k.drivers == nil {
			k.drivers = map[string]map[string][]string{}
		}
		if k.drivers[name] == nil {
			k.drivers[name] = map[string][]string{}
		}
		if !slices.Contains(k.drivers[name][p.Mode], p.Driver) {
			k.drivers[name][p.Mode] = append(k.drivers[name][p.Mode], p.Driver)
		}
	}
	during := pointLabel(p)
	matched := matchLines(k.match, lines, during)
	unkept := k.tallyLocked(tally, len(lines), matched, during)
	k.addLocked(matched)
	switch {
	case len(matched) > 0:
		p.Flags = append(p.Flags, flagKernel+cutText(matched[0].Text, 200))
	case unkept != "":
		p.Flags = append(p.Flags, flagKernel+unkept)
	}
}

// report takes the agent's kernel report from one end of the sweep.
func (k *kernelJudge) report(r protocol.Kernel) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case r.Unknown != "":
		if !k.read {
			k.health.Health, k.health.Reason = protocol.HealthUnknown, r.Unknown
		} else {
			k.gapLocked(r.Unknown, "the end of the sweep")
		}
	case r.Source != "":
		if !k.read {
			k.read = true
			k.health.Reason = ""
			if k.health.Health == protocol.HealthUnknown {
				k.health.Health = protocol.HealthOK
			}
		}
		k.health.Source = r.Source
	}
	if r.Phase == "before" {
		if k.since == 0 {
			k.since = r.Now
		}
		if k.bootID == "" {
			k.bootID = r.BootID
		}
		return
	}
	k.inflight, k.joined = nil, nil
	const end = "the end of the sweep"
	if r.Dropped > 0 { // an agent that predates the tally: every line over its caps went unmatched
		k.health.Lost += r.Dropped
		k.gapLocked(fmt.Sprintf("%d kernel lines left out unmatched by an agent that predates matching on the board", r.Dropped), end)
	}
	matched := matchLines(k.match, r.Lines, end)
	k.tallyLocked(r.Tally, len(r.Lines), matched, end)
	k.addLocked(matched)
	k.health.Drivers = append(k.health.Drivers, k.driverNotesLocked(r.ProcCrypto)...)
}

func (k *kernelJudge) addLocked(lines []protocol.HealthLine) {
	for _, l := range lines {
		if l.Fatal && k.fatal == "" {
			k.fatal = l.Text
		}
		if len(k.health.Lines) < protocol.MaxHealthLines {
			k.health.Lines = append(k.health.Lines, l)
		} else {
			k.health.Dropped++
		}
	}
	if len(lines) > 0 {
		k.health.Health = protocol.HealthProblems
	}
}

// driverNotesLocked compares /proc/crypto before and after the sweep for the kernel algorithms the points used:
// a driver that has not passed its self-test (the kernel then serves the algorithm with another, silently), and
// a change of the driver the kernel picks (a module loaded, or a driver died) during the sweep.
func (k *kernelJudge) driverNotesLocked(after []protocol.CryptoAlg) []string {
	var names []string
	for n := range k.drivers {
		names = append(names, n)
	}
	sort.Strings(names)
	var notes []string
	for _, name := range names {
		measured := k.measuredLocked(name)
		for _, a := range k.before {
			if a.Name == name && a.Selftest != "" && a.Selftest != "passed" {
				notes = append(notes, fmt.Sprintf("%s: %s has not passed its self-test (selftest: %s)%s", name, a.Driver, a.Selftest, measured))
			}
		}
		if len(after) == 0 {
			continue
		}
		was, ok1 := protocol.PickCryptoAlg(k.before, name, "")
		now, ok2 := protocol.PickCryptoAlg(after, name, "")
		if ok1 != ok2 || was.Driver != now.Driver {
			notes = append(notes, fmt.Sprintf("%s: the kernel's driver changed during the sweep from %s to %s%s",
				name, noDriver(was.Driver), noDriver(now.Driver), measured))
		}
	}
	return notes
}

// measuredLocked says which drivers the points of each mode named for a kernel algorithm: "; afalg measured
// cbc-aes-ce".
func (k *kernelJudge) measuredLocked(name string) string {
	var modes []string
	for m := range k.drivers[name] {
		modes = append(modes, m)
	}
	sort.Strings(modes)
	var parts []string
	for _, m := range modes {
		parts = append(parts, m+" measured "+strings.Join(k.drivers[name][m], ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// result is the board run's kernel health: never ok when some of the log was not read.
func (k *kernelJudge) result() protocol.KernelHealth {
	k.mu.Lock()
	defer k.mu.Unlock()
	h := k.health
	h.Lines = slices.Clone(h.Lines)
	h.Drivers = slices.Clone(h.Drivers)
	if why := k.gapReasonLocked(); why != "" {
		if h.Health == protocol.HealthOK {
			h.Health = protocol.HealthUnknown
		}
		if h.Reason != "" {
			why = h.Reason + "; " + why
		}
		h.Reason = why
	}
	return h
}

// fatalLine is the first Oops, BUG or panic line, "" when none appeared.
func (k *kernelJudge) fatalLine() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.fatal
}

// rebooted records a board that came back (or not) after it was lost during the job in flight; panic lines the
// board kept (pstore) are matched like the log's.
func (k *kernelJudge) rebooted(r protocol.Reboot, panicLines []protocol.KernelLine) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.health.Reboot == nil {
		k.health.Reboot = &r // the first; later ones are counted in the cause
	}
	k.reboots++
	if r.BootAfter != "" {
		k.bootID, k.since = r.BootAfter, 0 // the next sweep's report sets since
	}
	k.addLocked(matchLines(k.match, panicLines, r.During))
	k.health.Health = protocol.HealthProblems
}

func pointLabel(p *protocol.Point) string {
	return protocol.Begin{Mode: p.Mode, Algorithm: p.Algorithm, BlockSize: p.BlockSize}.Label()
}

func noDriver(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// boot is the boot id the board had when the job in flight started, and its clock at the sweep's start.
func (k *kernelJudge) boot() (string, int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.bootID, k.since
}

// rebootCause says how the board came back, "" when it never went away.
func (k *kernelJudge) rebootCause() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	r := k.health.Reboot
	if r == nil || r.BootAfter == "" {
		return ""
	}
	what := "rebooted"
	if r.BootAfter == r.BootBefore {
		what = "lost its connection without a reboot"
	}
	f := strings.Fields(r.During)
	s := fmt.Sprintf("%s during %s (boot id %s → %s); %s left out, the rest measured", what, r.During,
		noDriver(r.BootBefore), r.BootAfter, strings.Join(f[:min(2, len(f))], " "))
	if k.reboots > 1 {
		s += fmt.Sprintf(" (%d times)", k.reboots)
	}
	return s
}
