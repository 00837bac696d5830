package report

import (
	"fmt"
	"html"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// fact is one line of a board's facts.
type fact struct{ Name, Value string }

// boardFacts lists what a board run says about the board, in reading order. Empty facts are left out.
func boardFacts(br store.BoardRun) []fact {
	var out []fact
	add := func(name, value string) {
		if value != "" {
			out = append(out, fact{name, value})
		}
	}
	add("status", StatusHeadline(string(br.Status), br.Points, br.Judged))
	add("error", br.Error)
	add("points", fmt.Sprint(br.Points))
	f := br.Facts
	if f == nil {
		add("facts", "none: the probe did not get that far")
		return out
	}
	add("hostname", f.Hostname)
	add("kernel", f.Kernel)
	add("machine", f.Machine)
	if pretty := f.OSRelease["PRETTY_NAME"]; pretty != "" {
		add("OS", pretty)
	}
	add("OpenSSL", firstNonEmpty(f.OpenSSL, f.OpenSSLVersion))
	add("OpenSSL path", f.OpenSSLPath)
	cpu := f.CPU.Model
	if f.CPU.Cores > 0 {
		cpu += fmt.Sprintf(", %d cores", f.CPU.Cores)
	}
	// A board without cpufreq reports neither clock; one with only a maximum (no scaling_cur_freq) must not
	// read "0 MHz", which looks like a measurement.
	switch {
	case f.CPU.CurMHz > 0 && f.CPU.MaxMHz > 0:
		cpu += fmt.Sprintf(", %.0f MHz (max %.0f)", f.CPU.CurMHz, f.CPU.MaxMHz)
	case f.CPU.CurMHz > 0:
		cpu += fmt.Sprintf(", %.0f MHz", f.CPU.CurMHz)
	case f.CPU.MaxMHz > 0:
		cpu += fmt.Sprintf(", max %.0f MHz", f.CPU.MaxMHz)
	}
	add("CPU", strings.TrimPrefix(cpu, ", "))
	add("governor", f.CPU.Governor)
	add("CPU features", strings.Join(f.CPU.Features, " "))
	add("/dev/crypto", yesNo(f.DevCrypto, ""))
	add("AF_ALG", yesNo(f.AFALG, f.AFALGError))
	engines := make(map[string]string, len(f.Engines))
	for e, status := range f.Engines {
		engines[e] = PlainReason(status) // OpenSSL's error records in words; show --raw and the JSON keep them
	}
	add("engines", joinMap(engines))
	var modes []string
	for _, m := range f.Modes {
		s := m.Mode
		switch {
		case m.Available && m.Reason != "":
			s += " (" + PlainReason(m.Reason) + ")"
		case !m.Available:
			s += ": not available"
			if m.Reason != "" {
				s += ", " + PlainReason(m.Reason) // the stored text: WriteRunSummary with raws, and the JSON
			}
		}
		modes = append(modes, s)
	}
	add("modes", strings.Join(modes, "; "))
	add("drivers", strings.Join(topDrivers(f), "; "))
	add("OpenSSL env", envText(f.OpenSSLEnv))
	conf := f.OpenSSLConf
	switch {
	case conf == "":
	case f.OpenSSLConfDigest == "none":
		conf += " (no engine or provider sections)"
	case f.OpenSSLConfDigest != "":
		conf += " (engine/provider sections " + f.OpenSSLConfDigest + ")"
	}
	add("OpenSSL config", conf)
	if len(f.OpenSSLConfRoutes) > 0 {
		add("runs without -engine go to", strings.Join(f.OpenSSLConfRoutes, "; "))
	}
	add("openssl sha256", f.OpenSSLSHA256)
	add("kernel command line", f.KernelCmdline)
	if f.Modules != nil {
		add("crypto modules", firstNonEmpty(strings.Join(protocol.CryptoModules(f.Modules, f.ProcCrypto), " "), "none loaded"))
	}
	if p := br.Previous; p != nil {
		add(fmt.Sprintf("changed since run %d", p.RunID), strings.Join(boardChanges(p.Facts, f), "; "))
	}
	add("probe errors", strings.Join(f.Errors, "; "))
	return out
}

// topDrivers names, for every /proc/crypto algorithm, the driver the kernel picks (protocol.Facts.KernelDriver).
func topDrivers(f *protocol.Facts) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range f.ProcCrypto {
		if seen[c.Name] {
			continue
		}
		seen[c.Name] = true
		if best, ok := f.KernelDriver(c.Name); ok {
			out = append(out, fmt.Sprintf("%s → %s (%d)", c.Name, best.Driver, best.Priority))
		}
	}
	sort.Strings(out)
	return out
}

// Emulated reports whether facts describe a QEMU guest: "QEMU" or "virt" in the CPU model, or QEMU in the
// uname or hostname.
func Emulated(f *protocol.Facts) bool {
	if f == nil {
		return false
	}
	model := strings.ToLower(f.CPU.Model)
	return strings.Contains(model, "qemu") || strings.Contains(model, "virt") ||
		strings.Contains(strings.ToLower(f.Uname), "qemu") || strings.Contains(strings.ToLower(f.Hostname), "qemu")
}

// emulationNotes warns once per emulated board that its numbers say nothing about real silicon.
func emulationNotes(brs []store.BoardRun) []string {
	var out []string
	seen := map[string]bool{}
	for _, br := range brs {
		if Emulated(br.Facts) && !seen[br.Board] {
			seen[br.Board] = true
			out = append(out, fmt.Sprintf("%s is emulated (QEMU): its numbers measure the emulator on this host and say nothing about real silicon.", br.Board))
		}
	}
	return out
}

func writeBoardHTML(ew *errWriter, br store.BoardRun) {
	ew.printf("<h3>%s (run %d)</h3>\n<dl class=\"facts\">\n", html.EscapeString(br.Board), br.RunID)
	for _, f := range boardFacts(br) {
		ew.printf("<dt>%s</dt><dd>%s</dd>\n", html.EscapeString(f.Name), html.EscapeString(f.Value))
	}
	ew.printf("</dl>\n")
	writeKernelHTML(ew, br)
	if len(br.Skips) > 0 {
		writeTableHTML(ew, skipsTable(br.Skips))
	}
}

// skipsTable lists what was not measured on a board, and why.
func skipsTable(skips []protocol.Skip) table {
	t := table{Title: "Not measured", Header: []string{"mode", "algorithm", "reason"}, Left: 3}
	for _, s := range skips {
		alg := s.Algorithm
		if alg == "" {
			alg = "(all)"
		}
		t.Rows = append(t.Rows, []string{s.Mode, alg, s.Reason})
	}
	return t
}

func yesNo(ok bool, why string) string {
	if ok {
		return "yes"
	}
	if why != "" {
		return "no: " + why
	}
	return "no"
}

func joinMap(m map[string]string) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + m[k]
	}
	return strings.Join(parts, "; ")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// envText lists an environment as NAME=value, sorted; "none set" for a recorded empty one.
func envText(env map[string]string) string {
	if env == nil {
		return ""
	}
	if len(env) == 0 {
		return "none set"
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + env[k]
	}
	return strings.Join(keys, " ")
}

// boardChanges is what differs between a board's facts in an earlier run and now: kernel, OpenSSL version,
// governor, maximum clock, and environmentDiff's facts, each only where both runs record it (knownChange).
func boardChanges(prev, cur *protocol.Facts) []string {
	if prev == nil || cur == nil {
		return nil
	}
	var out []string
	diff := func(what, a, b string) {
		if knownChange(a, b) {
			out = append(out, fmt.Sprintf("%s: %s → %s", what, a, b))
		}
	}
	diff("kernel", prev.Kernel, cur.Kernel)
	diff("OpenSSL", openSSLVersion(prev), openSSLVersion(cur))
	diff("governor", prev.CPU.Governor, cur.CPU.Governor)
	diff("CPU max MHz", mhz(prev.CPU.MaxMHz), mhz(cur.CPU.MaxMHz))
	return append(out, environmentDiff(prev, cur)...)
}
