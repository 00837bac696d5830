package report

import (
	"encoding/json"
	"io"
)

// writeJSON prints v as indented JSON with a trailing newline. Field names are the json tags of the exported
// types: they are a stable interface for scripts.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
