package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

func TestPrintable(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"aes-128-cbc", "aes-128-cbc"},
		{"aes\x00-128-cbc", `aes\x00-128-cbc`},
		{"\x1b[2Jx", `\x1b[2Jx`},
		{"line\nbreak\ttab", `line\nbreak\ttab`},
		{"c1 \u009b31m", `c1 \u009b31m`},
		{"del \x7f", `del \x7f`},
		{"bad \xff utf-8", `bad \xff utf-8`},
		{"µs ±2 % ×", "µs ±2 % ×"},
	} {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got, want := PrintableText("a\n\tb\x1b[0m\n"), "a\n\tb\\x1b[0m\n"; got != want {
		t.Errorf("PrintableText = %q, want %q", got, want)
	}
}

// controlFree fails when out holds a byte a terminal acts on (other than the newline that ends each line).
func controlFree(t *testing.T, what string, out []byte) {
	t.Helper()
	for i, c := range out {
		if c < 0x20 && c != '\n' || c == 0x7f {
			t.Errorf("%s: control byte %#x at %d in\n%s", what, c, i, out)
			return
		}
	}
}

// TestTextRenderersEscapeControlCharacters: what the database holds from a capture or a label (a NUL in an
// algorithm, an escape sequence, a newline in a label) reaches the terminal escaped, in every text renderer.
func TestTextRenderersEscapeControlCharacters(t *testing.T) {
	var ms []store.Measurement
	for _, mode := range []string{"cpu", "devcrypto"} {
		for _, size := range []int{16, 16384} {
			ms = append(ms, store.Measurement{RunID: 1, RunLabel: "nightly\x1b]0;pwned\x07", Board: "am64x\x1b[2J",
				Point: protocol.Point{Mode: mode, Algorithm: "aes\x00-128-cbc", Op: "encrypt", BlockSize: size, Threads: 1,
					Timing: "wall", BytesPerSec: float64(size) * 1e4, CPUPct: 100, Error: "x\x1b[31my"}})
		}
	}
	for _, format := range []string{"text", "markdown"} {
		var b bytes.Buffer
		if err := WriteResults(&b, ms, format); err != nil {
			t.Fatal(err)
		}
		controlFree(t, "results "+format, b.Bytes())
		if !strings.Contains(b.String(), `aes\x00-128-cbc`) || !strings.Contains(b.String(), `am64x\x1b[2J`) {
			t.Errorf("results %s: escapes not visible:\n%s", format, b.String())
		}
	}
	c, err := Compare(ms, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "text"); err != nil {
		t.Fatal(err)
	}
	controlFree(t, "compare", b.Bytes())
	if !strings.Contains(b.String(), `\x00`) {
		t.Errorf("compare: the NUL is not shown:\n%s", b.String())
	}

	run := store.Run{ID: 7, Label: "x\nlatest", Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Status: protocol.StatusImported, Source: "imported from /tmp/\x1b[2J.txt"}
	b.Reset()
	if err := WriteRuns(&b, []store.Run{run}, "text"); err != nil {
		t.Fatal(err)
	}
	controlFree(t, "runs", b.Bytes())
	if got := strings.Count(b.String(), "\n"); got != 3 {
		t.Errorf("runs: %d lines, want the title, a header and one row:\n%s", got, b.String())
	}
	b.Reset()
	raws := []store.RawOutput{{RunID: 7, Board: "b", Raw: protocol.Raw{ID: 1, Command: []string{"import", "x"}, Stdout: "ok\n\x1b[2Jgone\n"}}}
	if err := WriteRunSummary(&b, run, []store.BoardRun{{RunID: 7, Board: "b\x00", Status: protocol.StatusOK}}, raws); err != nil {
		t.Fatal(err)
	}
	controlFree(t, "show", b.Bytes())
	if !strings.Contains(b.String(), "ok\n\\x1b[2Jgone\n") {
		t.Errorf("show --raw: want the output's lines kept and its escape shown:\n%s", b.String())
	}
}
