package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/textfit"
)

// TextWidth is the widest line fleet's text output may print: the width its tables are fitted to and its
// notes, help and messages folded at. A wider line wraps in the reader's terminal where nobody chose.
const TextWidth = 100

// Allow names the golden files CheckWidths leaves alone, by glob over the file name, each with why: only machine
// formats (JSON, CSV, XML, HTML, Markdown source) and output the user asked to be wide may hold longer lines.
type Allow map[string]string

// CheckWidths fails on every line over TextWidth display columns in the golden files of dir (*.golden), except
// those allow matches. A file that starts with "$ fleet" is a CLI transcript: only its stdout and stderr parts
// are output (the command line and exit code above them are the test's). It returns how many files it read.
func CheckWidths(t testing.TB, dir string, allow Allow) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for pattern := range allow {
		if _, err := filepath.Match(pattern, ""); err != nil {
			t.Fatalf("allow pattern %q: %v", pattern, err)
		}
	}
	read := 0
	for _, path := range files {
		if allowed(filepath.Base(path), allow) {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		read++
		for _, l := range outputLines(string(b)) {
			if w := textfit.Width(l.text); w > TextWidth {
				t.Errorf("%s:%d: %d columns, over %d: %q", path, l.n, w, TextWidth, l.text)
			}
		}
	}
	return read
}

func allowed(name string, allow Allow) bool {
	for pattern := range allow {
		if ok, _ := filepath.Match(pattern, name); ok {
			return true
		}
	}
	return false
}

type numbered struct {
	n    int
	text string
}

// outputLines are the lines of a golden file that a command printed: all of them, or in a CLI transcript the
// lines after "--- stdout" and "--- stderr".
func outputLines(s string) []numbered {
	lines := strings.Split(s, "\n")
	transcript := strings.HasPrefix(s, "$ fleet ")
	inOutput := !transcript
	var out []numbered
	for i, l := range lines {
		if transcript && (l == "--- stdout" || l == "--- stderr") {
			inOutput = true
			continue
		}
		if inOutput {
			out = append(out, numbered{i + 1, l})
		}
	}
	return out
}
