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

// WriteCompare renders a comparison as text, markdown, csv, json or html.
func WriteCompare(w io.Writer, c *Comparison, format string) error {
	f, err := ViewCompare.CheckFormat(format)
	if err != nil {
		return err
	}
	switch f {
	case FormatText:
		err = c.document().writeText(w)
	case FormatMarkdown:
		err = c.document().writeMarkdown(w)
	case FormatCSV:
		err = writeCompareCSV(w, c)
	case FormatJSON:
		err = writeJSON(w, c)
	case FormatHTML:
		err = WriteHTML(w, HTMLReport{Title: "fleet compare", Comparison: c})
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
		err = r.document().writeText(w)
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
