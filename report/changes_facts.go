package report

import (
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// factsChanged names what differs between the board run before a change and the one after it: kernel, OpenSSL
// version, CPU governor and maximum clock, the CPU capabilities OpenSSL runs with (its CPUINFO line, which names
// an OPENSSL_ia32cap or OPENSSL_armcap mask), the driver the kernel picks for the series' algorithm (/proc/crypto),
// the openssl environment, configuration and binary, the kernel command line and crypto modules
// (environmentDiff), the drivers the series' points name, and fleet's own version. Empty when nothing that fleet records changed
// (or the runs have no facts, as imports do).
func factsChanged(h *store.Histories, s *store.SeriesHistory, prev, first nightValue, key SampleKey) []string {
	out := []string{}
	diff := func(what, a, b string) {
		if knownChange(a, b) {
			out = append(out, fmt.Sprintf("%s %s → %s", what, a, b))
		}
	}
	bf, af := h.FactsOf(prev.run, key.Board), h.FactsOf(first.run, key.Board)
	if bf != nil && af != nil {
		diff("kernel", bf.Kernel, af.Kernel)
		diff("OpenSSL", openSSLVersion(bf), openSSLVersion(af))
		diff("governor", bf.CPU.Governor, af.CPU.Governor)
		diff("CPU max MHz", mhz(bf.CPU.MaxMHz), mhz(af.CPU.MaxMHz))
		diff("OpenSSL CPUINFO", openSSLCPUInfo(bf), openSSLCPUInfo(af))
		if name := protocol.KernelAlgorithm(key.Algorithm); name != "" {
			diff("kernel driver for "+name, topDriver(bf, name), topDriver(af, name))
		}
		out = append(out, environmentDiff(bf, af)...)
	}
	// The points' own drivers say what served this mode (afalg, kcapi); a side without any says nothing.
	a, b := strings.Join(s.Nights[prev.index].Drivers, ", "), strings.Join(s.Nights[first.index].Drivers, ", ")
	if a != "" && b != "" {
		diff(key.Mode+" driver", a, b)
	}
	diff("fleet", h.Runs[prev.run].ToolVersion, h.Runs[first.run].ToolVersion)
	return out
}
