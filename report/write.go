package report

import (
	"fmt"
	"io"
	"strings"
)

// Output formats.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatCSV      = "csv"
	FormatJSON     = "json"
	FormatHTML     = "html"
)

// normalizeFormat maps aliases to the format names; "" is text.
func normalizeFormat(format string) string {
	switch f := strings.ToLower(format); f {
	case "", "table", "txt":
		return FormatText
	case "md":
		return FormatMarkdown
	default:
		return f
	}
}

// WriteCompare renders a comparison as text (in the default Layout), markdown, csv, json or html.
func WriteCompare(w io.Writer, c *Comparison, format string) error {
	return WriteCompareLayout(w, c, format, Layout{})
}

// WriteCompareLayout renders a comparison as text in the given layout, or as markdown, csv, json (always the
// full tables) or html (its board-against-board tables at l.Size).
func WriteCompareLayout(w io.Writer, c *Comparison, format string, l Layout) error {
	f, err := ViewCompare.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText:
		if l.Wide {
			err = c.document().writeText(w)
			break
		}
		var d document
		if d, err = c.compactDocument(l); err != nil {
			return fmt.Errorf("write comparison: %w", err)
		}
		err = d.writeText(w)
	case FormatMarkdown:
		err = c.document().writeMarkdown(w)
	case FormatCSV:
		err = writeCompareCSV(w, c)
	case FormatJSON:
		err = writeJSON(w, c)
	case FormatHTML:
		err = WriteHTML(w, HTMLReport{Title: "fleet compare", Comparison: c, Size: l.Size})
	default:
		return fmt.Errorf("compare: format %q offered but not rendered", f)
	}
	if err != nil {
		return fmt.Errorf("write comparison: %w", err)
	}
	return nil
}

// FormatJUnit is the JUnit XML form of a regression.
const FormatJUnit = "junit"

// WriteRegression renders a regression as text, markdown, csv, json or junit.
func WriteRegression(w io.Writer, r *Regression, format string) error {
	f, err := ViewRegress.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText:
		d := r.document()
		d.Width = TextWidth
		err = d.writeText(w)
	case FormatMarkdown:
		err = r.document().writeMarkdown(w)
	case FormatCSV:
		err = writeRegressCSV(w, r)
	case FormatJSON:
		err = writeJSON(w, r)
	case FormatJUnit:
		return WriteJUnit(w, r)
	default:
		return fmt.Errorf("regress: format %q offered but not rendered", f)
	}
	if err != nil {
		return fmt.Errorf("write regression: %w", err)
	}
	return nil
}
