package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// importTableRows bounds the rows `import --dry-run` holds for one table: a larger capture prints one table per
// importTableRows points, so that memory stays bounded whatever its size.
const importTableRows = 10000

// importRecord is one measurement of --dry-run --format json.
type importRecord struct {
	File string `json:"file"`
	protocol.Point
}

// importPrinter prints what `import --dry-run` reads, as it is read: JSON lines, or a line per openssl command
// on stderr and the points as tables.
type importPrinter struct {
	out, errw io.Writer
	json      bool
	board     string
	enc       *json.Encoder
	ms        []store.Measurement
	tables    int // tables printed
	err       error
}

func (p *importPrinter) run(file string, r opensslspeed.Run) {
	if p.err != nil {
		return
	}
	if p.json {
		if p.enc == nil {
			p.enc = json.NewEncoder(p.out)
		}
		for _, pt := range r.Points {
			if p.err = p.enc.Encode(importRecord{File: file, Point: pt}); p.err != nil {
				return
			}
		}
		return
	}
	fmt.Fprintf(p.errw, "%s:%d: %s, %d points, timing %s%s\n", file, r.Line, dash(r.Mode), len(r.Points), dash(r.Timing),
		report.Printable(failedNote(r.Failed)))
	for _, pt := range r.Points {
		p.ms = append(p.ms, store.Measurement{Board: p.board, Point: pt})
	}
	if len(p.ms) >= importTableRows {
		p.err = p.flush()
	}
}

// flush prints the points held, as a table.
func (p *importPrinter) flush() error {
	if p.err != nil || p.json {
		return p.err
	}
	ms := p.ms
	if len(ms) == 0 && p.tables > 0 {
		return nil
	}
	p.ms = p.ms[:0]
	p.tables++
	return report.WriteResults(p.out, ms, "table")
}

func failedNote(s string) string {
	if s == "" {
		return ""
	}
	return " — FAILED: " + s
}
