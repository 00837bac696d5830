package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// ImportedPoint is one point read from a capture by fleet import --dry-run, with the file it came from.
type ImportedPoint struct {
	File string `json:"file"`
	protocol.Point
}

// WriteImport prints the points of an import that stores nothing: as text the results table of board (see
// WriteResults), as json one object per line (the point's fields and "file"), so a large capture streams.
func WriteImport(w io.Writer, board string, points []ImportedPoint, format string) error {
	f, err := ViewImport.CheckFormat(format)
	if err != nil {
		return err
	}
	if f == FormatText {
		ms := make([]store.Measurement, 0, len(points))
		for _, p := range points {
			ms = append(ms, store.Measurement{Board: board, Point: p.Point})
		}
		return WriteResults(w, ms, FormatText)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range points {
		if err := enc.Encode(p); err != nil {
			return fmt.Errorf("write imported points: %w", err)
		}
	}
	return nil
}
