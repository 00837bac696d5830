package agent

import (
	"math"
	"os"
	"time"

	"github.com/fleetlab/fleet/protocol"

	"golang.org/x/sys/unix"
)

// evidenceSample is one reading of everything a validity verdict needs. Two of them, before and after a
// point, become the point's protocol.Evidence.
type evidenceSample struct {
	at        time.Time
	stat      []statLine // nil: /proc/stat unreadable
	tree      float64    // CPU seconds of the agent and every child it waited for
	treeOK    bool
	load      float64
	loadOK    bool
	swapIn    int64
	swapOut   int64
	swapOK    bool
	offline   string
	offlineOK bool
	policies  []policySample
	temps     []tempSample
}

// sampleEvidence reads /proc and /sys under root ("" is the real root). A file it cannot read leaves its part
// empty: evidenceBetween reports that part as unknown.
func sampleEvidence(root string) evidenceSample {
	e := evidenceSample{at: time.Now()}
	if f, err := os.Open(root + "/proc/stat"); err == nil {
		e.stat, _ = parseProcStatLines(f)
		f.Close()
	}
	e.tree, e.treeOK = agentTreeSeconds()
	if s, ok := readTrim(root + "/proc/loadavg"); ok {
		if v, err := parseLoadAvg(s); err == nil {
			e.load, e.loadOK = v, true
		}
	}
	if f, err := os.Open(root + "/proc/vmstat"); err == nil {
		e.swapIn, e.swapOut, e.swapOK = parseVMStatSwap(f)
		f.Close()
	}
	e.offline, e.offlineOK = readTrim(root + "/sys/devices/system/cpu/offline")
	for _, dir := range cpufreqDirs(root) {
		e.policies = append(e.policies, readPolicy(dir))
	}
	e.temps = readThermal(root)
	return e
}

// agentTreeSeconds is the user+system CPU time of this process and of the children it has waited for: the work
// the agent itself put on the board, which is not background.
func agentTreeSeconds() (float64, bool) {
	var self, kids unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &self) != nil || unix.Getrusage(unix.RUSAGE_CHILDREN, &kids) != nil {
		return 0, false
	}
	tv := func(t unix.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime), true
}

// evidenceBetween turns two samples into the evidence of what happened between them. Every figure is finite
// and non-negative (JSON has no NaN): one that cannot be computed is left out and named in Unknown.
func evidenceBetween(before, after evidenceSample) *protocol.Evidence {
	ev := &protocol.Evidence{}
	unknown := func(s string) { ev.Unknown = append(ev.Unknown, s) }
	if before.loadOK {
		ev.LoadAvg1 = ptr(before.load)
	} else {
		unknown("loadavg: /proc/loadavg unreadable")
	}
	if after.offlineOK {
		ev.OfflineCPUs = after.offline
	} else {
		unknown("offline cpus: /sys/devices/system/cpu/offline unreadable")
	}
	statBetween(ev, before, after, unknown)
	if before.swapOK && after.swapOK && after.swapIn >= before.swapIn && after.swapOut >= before.swapOut {
		ev.SwapIn, ev.SwapOut = ptr(after.swapIn-before.swapIn), ptr(after.swapOut-before.swapOut)
	} else {
		unknown("swap: no pswpin/pswpout in /proc/vmstat")
	}
	if len(after.policies) == 0 {
		unknown("cpufreq: no policies in /sys/devices/system/cpu/cpufreq")
	}
	for _, p := range after.policies {
		ev.CPUFreq = append(ev.CPUFreq, policyBetween(before.policies, p))
	}
	if len(after.temps) == 0 {
		unknown("thermal: no thermal zones or hwmon temperatures")
	}
	for _, t := range after.temps {
		ev.Thermal = append(ev.Thermal, tempBetween(before.temps, t))
	}
	return ev
}

// statBetween fills cores, background, per-core busy and steal from two /proc/stat readings.
func statBetween(ev *protocol.Evidence, before, after evidenceSample, unknown func(string)) {
	if before.stat == nil || after.stat == nil {
		unknown("background cpu: /proc/stat unreadable")
		return
	}
	ev.Cores = len(after.stat) - 1
	b, a := before.stat[0], after.stat[0]
	if a.Total <= b.Total || a.Busy < b.Busy || a.Steal < b.Steal {
		unknown("background cpu: no time passed in /proc/stat")
		return
	}
	total := float64(a.Total - b.Total)
	ev.StealPct = ptr(round2(float64(a.Steal-b.Steal) / total * 100))
	prev := map[string]statLine{}
	for _, l := range before.stat[1:] {
		prev[l.Name] = l
	}
	for _, l := range after.stat[1:] {
		p, ok := prev[l.Name]
		pct := 0.0
		if ok && l.Total > p.Total && l.Busy >= p.Busy {
			pct = float64(l.Busy-p.Busy) / float64(l.Total-p.Total) * 100
		}
		ev.CoreBusyPct = append(ev.CoreBusyPct, round2(math.Min(pct, 100)))
	}
	if !before.treeOK || !after.treeOK {
		unknown("background cpu: own cpu time unreadable")
		return
	}
	// ticks are USER_HZ; the capacity is what all cores had between the two readings, by /proc/stat's clock
	busy := float64(a.Busy-b.Busy) / userHZ
	own := after.tree - before.tree
	bg := (busy - own) / (total / userHZ) * 100
	ev.BackgroundPct = ptr(round2(math.Max(0, math.Min(bg, 100))))
}

// policyBetween is one policy's evidence: its settings after the point and its time_in_state delta.
func policyBetween(before []policySample, p policySample) protocol.FreqPolicy {
	fp := protocol.FreqPolicy{Policy: p.name, CPUs: p.cpus, Driver: p.driver, Governor: p.governor,
		MinKHz: p.minKHz, MaxKHz: p.maxKHz, CPUInfoMaxKHz: p.hwMax}
	for _, b := range before {
		if b.name != p.name {
			continue
		}
		if b.curKHz > 0 {
			fp.CurKHz = append(fp.CurKHz, b.curKHz)
		}
		if b.timeInState != nil && p.timeInState != nil && p.hwMax > 0 {
			if pct, low, ok := belowMax(b.timeInState, p.timeInState, p.hwMax); ok {
				fp.BelowMaxPct, fp.LowestKHz = ptr(round2(pct)), low
			}
		}
	}
	if p.curKHz > 0 {
		fp.CurKHz = append(fp.CurKHz, p.curKHz)
	}
	return fp
}

// tempBetween is one sensor's before and after reading.
func tempBetween(before []tempSample, t tempSample) protocol.ThermalSensor {
	s := protocol.ThermalSensor{Name: t.name, Type: t.typ}
	for _, b := range before {
		if b.name == t.name && b.ok {
			s.BeforeMC = ptr(b.mc)
		}
	}
	if t.ok {
		s.AfterMC = ptr(t.mc)
	}
	if t.tripMC > 0 {
		s.TripMC = ptr(t.tripMC)
	}
	return s
}

func ptr[T any](v T) *T { return &v }

func round2(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Round(v*100) / 100
}
