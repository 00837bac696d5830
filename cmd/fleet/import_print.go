package main

import (
	"fmt"
	"io"

	"github.com/fleetlab/fleet/internal/textfit"
	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/report"
)

// importTableRows bounds the rows `import --dry-run` holds for one table: a larger capture prints one table per
// importTableRows points, so that memory stays bounded whatever its size.
const importTableRows = 10000

// importPrinter prints what `import --dry-run` reads, as it is read: JSON lines, or a line per openssl command
// on stderr and the points as tables.
type importPrinter struct {
	out, errw io.Writer
	json      bool
	board     string
	pts       []report.ImportedPoint
	tables    int // tables printed
	err       error
}

func (p *importPrinter) run(file string, r opensslspeed.Run) {
	if p.err != nil {
		return
	}
	if p.json {
		pts := make([]report.ImportedPoint, len(r.Points))
		for i, pt := range r.Points {
			pts[i] = report.ImportedPoint{File: file, Point: pt}
		}
		p.err = report.WriteImport(p.out, p.board, pts, report.FormatJSON)
		return
	}
	line := fmt.Sprintf("%s:%d: %s, %d points, timing %s%s\n", file, r.Line, dash(r.Mode), len(r.Points), dash(r.Timing),
		report.Printable(failedNote(r.Failed)))
	io.WriteString(p.errw, textfit.FoldLines(line, report.TextWidth, "  "))
	for _, pt := range r.Points {
		p.pts = append(p.pts, report.ImportedPoint{File: file, Point: pt})
	}
	if len(p.pts) >= importTableRows {
		p.err = p.flush()
	}
}

// flush prints the points held, as a table.
func (p *importPrinter) flush() error {
	if p.err != nil || p.json {
		return p.err
	}
	pts := p.pts
	if len(pts) == 0 && p.tables > 0 {
		return nil
	}
	p.pts = p.pts[:0]
	p.tables++
	return report.WriteImport(p.out, p.board, pts, report.FormatText)
}

func failedNote(s string) string {
	if s == "" {
		return ""
	}
	return " — FAILED: " + s
}
