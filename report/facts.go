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
	add("CPU", cpuFact(f.CPU))
	add("governor", f.CPU.Governor)
	add("CPU features", strings.Join(f.CPU.Features, " "))
	add("/dev/crypto", yesNo(f.DevCrypto, ""))
	add("AF_ALG", yesNo(f.AFALG, f.AFALGError))
	add("engines", enginesFact(f.Engines))
	add("modes", modesFact(f.Modes))
	add("drivers", driversFact(topDrivers(f)))
	add("OpenSSL env", envText(f.OpenSSLEnv))
	add("OpenSSL config", opensslConfFact(f))
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

// cpuFact is "Cortex-A53, 4 cores, 1200 MHz (max 1400)": the model with what the probe knows of cores and clock.
func cpuFact(c protocol.CPUFacts) string {
	cpu := c.Model
	if c.Cores > 0 {
		cpu += fmt.Sprintf(", %d cores", c.Cores)
	}
	// A board without cpufreq reports neither clock; one with only a maximum (no scaling_cur_freq) must not
	// read "0 MHz", which looks like a measurement.
	switch {
	case c.CurMHz > 0 && c.MaxMHz > 0:
		cpu += fmt.Sprintf(", %.0f MHz (max %.0f)", c.CurMHz, c.MaxMHz)
	case c.CurMHz > 0:
		cpu += fmt.Sprintf(", %.0f MHz", c.CurMHz)
	case c.MaxMHz > 0:
		cpu += fmt.Sprintf(", max %.0f MHz", c.MaxMHz)
	}
	return strings.TrimPrefix(cpu, ", ")
}

// enginesFact lists the engines with their status in words.
func enginesFact(in map[string]string) string {
	engines := make(map[string]string, len(in))
	for e, status := range in {
		// OpenSSL's error records in words, as the probe's "engine NAME: …" reasons are; the JSON keeps them
		plain := PlainReason("engine " + e + ": " + status)
		switch {
		case strings.HasPrefix(plain, "the "+e+" engine is not installed"):
			status = strings.TrimPrefix(plain, "the "+e+" engine is ")
		case strings.HasPrefix(plain, "the "+e+" engine did not load: "):
			status = "not available: " + strings.TrimPrefix(plain, "the "+e+" engine did not load: ")
		}
		engines[e] = status
	}
	return joinMap(engines)
}

// modesFact lists the modes, each with why it is, or is not, available.
func modesFact(in []protocol.ModeFact) string {
	var modes []string
	for _, m := range in {
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
	return strings.Join(modes, "; ")
}

// opensslConfFact is the OpenSSL configuration file with what its engine and provider sections are.
func opensslConfFact(f *protocol.Facts) string {
	conf := f.OpenSSLConf
	switch {
	case conf == "":
	case f.OpenSSLConfDigest == "none":
		conf += " (no engine or provider sections)"
	case f.OpenSSLConfDigest != "":
		conf += " (engine/provider sections " + f.OpenSSLConfDigest + ")"
	}
	return conf
}

// driversFact is the kernel's driver choices in one line a person reads: the hardware and optimised drivers
// named, the generic software ones (C code, library calls, templates over another driver) counted, since a board
// lists forty and more and the few that accelerate are what a reader looks for. `show --format json` and the
// dashboard's fold keep every choice.
func driversFact(choices []string) string {
	if len(choices) == 0 {
		return ""
	}
	var named []string
	for _, c := range choices {
		if !genericDriver(c) {
			named = append(named, c)
		}
	}
	const most = 8
	generic := len(choices) - len(named)
	var parts []string
	if len(named) > most {
		parts = append(parts, strings.Join(named[:most], "; ")+fmt.Sprintf("; %d more", len(named)-most))
	} else if len(named) > 0 {
		parts = append(parts, strings.Join(named, "; "))
	}
	if generic > 0 {
		parts = append(parts, plural(generic, "algorithm")+" on generic software drivers")
	}
	if generic == 0 && len(named) <= most {
		return strings.Join(parts, "; ") // every choice is named
	}
	return strings.Join(parts, "; ") + " (all of them: --format json)"
}

// genericDriver reports whether a choice "cbc(aes) → cbc(ecb(aes-fixed-time)) (101)" is the kernel's portable
// software: a template over another driver, or a driver named as generic C or a library call.
func genericDriver(choice string) bool {
	_, driver, _ := strings.Cut(choice, " → ")
	driver, _, _ = strings.Cut(driver, " (")
	if strings.Contains(driver, "(") {
		return true // a template (cbc, hmac, gcm…) over another driver: the inner one is listed on its own
	}
	for _, suffix := range []string{"-generic", "-lib", "-fixed-time", "-scomp", "_rng", "-cipher_null"} {
		if strings.HasSuffix(driver, suffix) {
			return true
		}
	}
	// the kernel's random number generators (drbg_*, jitterentropy_rng) are software whatever the board
	return driver == "cipher_null" || driver == "digest_null" || strings.HasPrefix(driver, "drbg_")
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
