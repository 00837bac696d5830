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
	pointDrivers := func(samples []*Sample) map[string][]string { // "board\x00mode\x00alg" → drivers
		out := map[string][]string{}
		for _, s := range samples {
			k := s.Key.Board + "\x00" + s.Key.Mode + "\x00" + s.Key.Algorithm
			for _, d := range s.Drivers {
				out[k] = addString(out[k], d)
			}
		}
		return out
	}
	baseDrv, curDrv := pointDrivers(base), pointDrivers(cur)

	var names []string
	for b := range boards {
		names = append(names, b)
	}
	sort.Strings(names)
	var out []EnvChange
	for _, board := range names {
		var changes []string
		diff := func(what, a, b string) {
			if knownChange(a, b) {
				changes = append(changes, fmt.Sprintf("%s: %s → %s", what, a, b))
			}
		}
		bf, cf := baseFacts[board], curFacts[board]
		if bf != nil && cf != nil {
			diff("kernel", bf.Kernel, cf.Kernel)
			diff("OpenSSL", openSSLVersion(bf), openSSLVersion(cf))
			diff("CPU governor", bf.CPU.Governor, cf.CPU.Governor)
			diff("CPU max MHz", mhz(bf.CPU.MaxMHz), mhz(cf.CPU.MaxMHz))
			diff("OpenSSL CPUINFO", openSSLCPUInfo(bf), openSSLCPUInfo(cf))
			var list []string
			for a := range algs[board] {
				list = append(list, a)
			}
			sort.Strings(list)
			for _, a := range list {
				name := protocol.KernelAlgorithm(a)
				if name == "" {
					continue
				}
				diff(fmt.Sprintf("driver for %s (%s)", a, name), topDriver(bf, name), topDriver(cf, name))
			}
			changes = append(changes, environmentDiff(bf, cf)...)
		}
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
				diff(fmt.Sprintf("driver of %s %s points", parts[1], parts[2]), a, b)
			}
		}
		if len(changes) > 0 {
			out = append(out, EnvChange{Board: board, Changes: changes})
		}
	}
	return out
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
