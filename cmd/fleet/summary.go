package main

import (
	"strings"
	"unicode/utf8"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/report"
)

// summaryWidth is the widest a board's mode summary may print on one line before it is broken up.
const summaryWidth = 100

// modeSummary is the honest account of a board's modes, one line when it fits:
//
//	measured soft, cpu, afalg, kcapi; not available: devcrypto (no /dev/crypto)
//
// For `boards check` (measured false) it says what a run would measure instead. Modes the board has but the
// board, profile or --modes left out are named ("available, not asked: kcapi"), so no accelerator is silently
// left unmeasured. OpenSSL's error records in a reason are put in words (report.PlainReason; the raw text stays
// stored, for fleet show --raw). Each returned line is prefixed by indent.
func modeSummary(r fleet.ModeReport, measured bool, indent string) []string {
	var first string
	switch {
	case measured && len(r.Measured) > 0:
		first = "measured " + strings.Join(r.Measured, ", ")
	case measured:
		first = "measured nothing"
	case len(r.Available) > 0:
		first = "available " + strings.Join(r.Available, ", ")
	default:
		first = "nothing available"
	}
	clauses := []string{first}
	if measured && len(r.Unmeasured) > 0 {
		clauses = append(clauses, "no points: "+strings.Join(r.Unmeasured, ", "))
	}
	var why []string
	for _, m := range r.Unavailable {
		why = append(why, report.Printable(m.Mode+" ("+report.PlainReason(m.Reason)+")")) // the board's words
	}
	if len(why) > 0 {
		clauses = append(clauses, "not available: "+strings.Join(why, ", "))
	}
	if len(r.NotAsked) > 0 {
		clauses = append(clauses, "available, not asked: "+strings.Join(r.NotAsked, ", "))
	}
	if line := indent + strings.Join(clauses, "; "); utf8.RuneCountInString(line) <= summaryWidth {
		return append([]string{line}, offloadLine(r, indent)...)
	}
	// Too wide for a terminal: one clause per line, and the reasons (which can be long) one mode per line.
	var lines []string
	for _, c := range clauses {
		if strings.HasPrefix(c, "not available: ") && utf8.RuneCountInString(indent+c) > summaryWidth {
			lines = append(lines, indent+"not available:")
			for _, m := range r.Unavailable {
				lines = append(lines, indent+"  "+report.Printable(m.Mode+": "+report.PlainReason(m.Reason)))
			}
			continue
		}
		lines = append(lines, indent+c)
	}
	return append(lines, offloadLine(r, indent)...)
}

// offloadLine names the board's offload drivers on a line of their own, with the mode that measures each when it
// was not asked for: "offload: virtio_crypto_aes_cbc (not asked: --modes kcapi:virtio_crypto_aes_cbc)".
func offloadLine(r fleet.ModeReport, indent string) []string {
	if len(r.Offload) == 0 {
		return nil
	}
	var parts []string
	for _, o := range r.Offload {
		part := report.Printable(o.Driver) // /proc/crypto's
		if !o.Asked {
			part += " (not asked: --modes kcapi:" + o.Driver + ")"
		}
		parts = append(parts, part)
	}
	return []string{indent + "offload: " + strings.Join(parts, ", ")}
}

// unexplained reports whether a skip still needs its own line: a mode-level skip of a mode the summary already
// lists as not available would only repeat the reason.
func unexplained(r fleet.ModeReport, mode, algorithm string) bool {
	if algorithm != "" {
		return true
	}
	for _, m := range r.Unavailable {
		if m.Mode == mode {
			return false
		}
	}
	return true
}
