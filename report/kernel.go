package report

import (
	"fmt"
	"html"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// KernelNotes are the lines every front end shows of a board run's kernel health (show, the HTML report, the
// dashboard's run page): the verdict, then each matched line with the point it appeared under, the driver notes
// from /proc/crypto and a reboot with both boot ids and the panic the board kept; how many lines were read (each
// matched on the board, only matching ones kept), and what was not read. None when it was not recorded.
func KernelNotes(h *protocol.KernelHealth) []string {
	if h == nil {
		return nil
	}
	head := "kernel: " + h.Health
	switch {
	case h.Health == protocol.HealthUnknown && h.Reason != "":
		head += " (" + h.Reason + ")"
	case h.Source != "":
		head += " (" + h.Source + ")"
	}
	out := []string{head}
	for _, l := range h.Lines {
		s := fmt.Sprintf("kernel log [%s]: %s", l.Pattern, l.Text)
		if l.Fatal {
			s = fmt.Sprintf("kernel log [%s, fatal]: %s", l.Pattern, l.Text)
		}
		if l.During != "" {
			s += " (during " + l.During + ")"
		}
		out = append(out, s)
	}
	if h.Health != protocol.HealthUnknown && h.Reason != "" {
		out = append(out, "kernel log: not all read: "+h.Reason)
	}
	switch {
	case h.Dropped > 0 && h.Read > 0:
		out = append(out, fmt.Sprintf("kernel log: %d more matching lines not kept", h.Dropped))
	case h.Dropped > 0: // stored before the agent matched on the board: matched and unmatched lines alike
		out = append(out, fmt.Sprintf("kernel log: %d more lines not kept", h.Dropped))
	}
	if h.Read > 0 {
		out = append(out, fmt.Sprintf("kernel log: %d lines read during the sweep, each matched against the patterns; "+
			"%d matched, the other %d are not kept", h.Read, min(len(h.Lines)+h.Dropped, h.Read), max(h.Read-len(h.Lines)-h.Dropped, 0)))
	}
	for _, d := range h.Drivers {
		out = append(out, "driver: "+d)
	}
	if r := h.Reboot; r != nil {
		if r.BootAfter == "" {
			out = append(out, fmt.Sprintf("board lost during %s (boot id %s); it did not answer again", r.During, orDash(r.BootBefore)))
		} else {
			out = append(out, fmt.Sprintf("rebooted during %s: boot id %s → %s", r.During, orDash(r.BootBefore), r.BootAfter))
		}
		if r.Panic != "" {
			out = append(out, "panic (pstore): "+strings.ReplaceAll(r.Panic, "\n", " | "))
		}
	}
	return out
}

// writeKernelHTML is KernelNotes as a list, marked as a warning unless the health is ok.
func writeKernelHTML(ew *errWriter, br store.BoardRun) {
	notes := KernelNotes(br.Kernel)
	if len(notes) == 0 {
		return
	}
	class := "kernel"
	if br.Kernel.Health != protocol.HealthOK {
		class = "kernel warning"
	}
	ew.printf("<ul class=\"%s\">\n", class)
	for _, n := range notes {
		ew.printf("<li>%s</li>\n", html.EscapeString(n))
	}
	ew.printf("</ul>\n")
}
