package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// environmentChanges names, per board, what differs between the baseline's and the run's facts: kernel, OpenSSL
// version, CPU governor and maximum clock, the highest-priority /proc/crypto driver of each algorithm measured,
// what environmentDiff compares (openssl environment, configuration and binary, kernel command line, crypto
// modules), and the drivers the points themselves name.
func environmentChanges(base, cur []*Sample, baseFacts, curFacts map[string]*protocol.Facts) []EnvChange {
	boards := map[string]bool{}
	algs := map[string]map[string]bool{} // board → algorithms measured
	for _, s := range append(append([]*Sample(nil), base...), cur...) {
		boards[s.Key.Board] = true
		if algs[s.Key.Board] == nil {
			algs[s.Key.Board] = map[string]bool{}
		}
		algs[s.Key.Board][s.Key.Algorithm] = true
	}
	baseDrv, curDrv := pointDrivers(base), pointDrivers(cur)
	var names []string
	for b := range boards {
		names = append(names, b)
	}
	sort.Strings(names)
	var out []EnvChange
	for _, board := range names {
		var changes envChanges
		if bf, cf := baseFacts[board], curFacts[board]; bf != nil && cf != nil {
			changes.facts(bf, cf, algs[board])
		}
		changes.pointDrivers(board, baseDrv, curDrv)
		if len(changes) > 0 {
			out = append(out, EnvChange{Board: board, Changes: changes})
		}
	}
	return out
}

// pointDrivers are the drivers the points of each series name, by "board\x00mode\x00alg".
func pointDrivers(samples []*Sample) map[string][]string {
	out := map[string][]string{}
	for _, s := range samples {
		k := s.Key.Board + "\x00" + s.Key.Mode + "\x00" + s.Key.Algorithm
		for _, d := range s.Drivers {
			out[k] = addString(out[k], d)
		}
	}
	return out
}

// envChanges are the changes of one board's environment, "what: before → after", in the order they are found.
type envChanges []string

// add notes what changed from a to b, when both runs record it and they differ.
func (c *envChanges) add(what, a, b string) {
	if knownChange(a, b) {
		*c = append(*c, fmt.Sprintf("%s: %s → %s", what, a, b))
	}
}

// facts notes what differs between the baseline's facts bf and the run's cf: kernel, OpenSSL, CPU governor,
// clock and CPUINFO, the kernel's driver of each algorithm in algs, then what environmentDiff compares.
func (c *envChanges) facts(bf, cf *protocol.Facts, algs map[string]bool) {
	c.add("kernel", bf.Kernel, cf.Kernel)
	c.add("OpenSSL", openSSLVersion(bf), openSSLVersion(cf))
	c.add("CPU governor", bf.CPU.Governor, cf.CPU.Governor)
	c.add("CPU max MHz", mhz(bf.CPU.MaxMHz), mhz(cf.CPU.MaxMHz))
	c.add("OpenSSL CPUINFO", openSSLCPUInfo(bf), openSSLCPUInfo(cf))
	var list []string
	for a := range algs {
		list = append(list, a)
	}
	sort.Strings(list)
	for _, a := range list {
		name := protocol.KernelAlgorithm(a)
		if name == "" {
			continue
		}
		c.add(fmt.Sprintf("driver for %s (%s)", a, name), topDriver(bf, name), topDriver(cf, name))
	}
	*c = append(*c, environmentDiff(bf, cf)...)
}

// pointDrivers notes the series of board whose points name other drivers in the run than in the baseline.
func (c *envChanges) pointDrivers(board string, baseDrv, curDrv map[string][]string) {
	var keys []string
	for k := range baseDrv {
		keys = append(keys, k)
	}
	for k := range curDrv {
		if _, ok := baseDrv[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts := strings.Split(k, "\x00")
		if parts[0] != board {
			continue
		}
		a, b := strings.Join(baseDrv[k], ", "), strings.Join(curDrv[k], ", ")
		if a != "" && b != "" { // a side without points is reported as missing or new, not as a driver change
			c.add(fmt.Sprintf("driver of %s %s points", parts[1], parts[2]), a, b)
		}
	}
}

// knownChange says whether a fact differs between two runs that both record it. A fact one run does not
// record (an imported capture names no kernel, a board without cpufreq has no governor) is unknown, not a
// value: "6.1 → (none)" would claim the kernel changed when nothing says it did.
func knownChange(a, b string) bool {
	return a != "" && b != "" && a != b
}

func mhz(v float64) string {
	if v == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f", v)
}

func openSSLVersion(f *protocol.Facts) string {
	if f.OpenSSLVersion != "" {
		return f.OpenSSLVersion
	}
	return f.OpenSSL
}

// openSSLCPUInfo is the CPUINFO line of `openssl version -a` (OpenSSL 3): the capability vector OpenSSL runs
// with and, when one is set, the OPENSSL_ia32cap or OPENSSL_armcap mask it was given ("OPENSSL_ia32cap=0xfcd8…:0x0
// env:~0x200000000000000"): a masked-off AES-NI or ARMv8 crypto extension changes it, and nothing else fleet
// records does. "" when the build text has no such line.
func openSSLCPUInfo(f *protocol.Facts) string {
	for _, line := range strings.Split(f.OpenSSLBuild, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "CPUINFO:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// topDriver is the driver the kernel picks for a kernel algorithm name on a board, "" when none.
func topDriver(f *protocol.Facts, name string) string {
	c, _ := f.KernelDriver(name)
	return c.Driver
}
