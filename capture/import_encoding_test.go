package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/fleetlab/fleet/opensslspeed"
)

// TestImportReadsUTF16AndCRCaptures: a capture saved as UTF-16 (as Windows PowerShell's `>` writes it: a byte
// order mark and "\r\n") or with lone '\r' line ends imports the points of the UTF-8 capture, on the same
// lines, and its raw output is the text as UTF-8, with "\r\n" where it had a line end of its own; a UTF-32 one
// is refused naming the encoding, nothing committed.
func TestImportReadsUTF16AndCRCaptures(t *testing.T) {
	text := strings.ReplaceAll(readCapture(t, "17"), "\r\n", "\n")
	dir := t.TempDir()
	imp := func(name string, data []byte) (*recordSink, error) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		sink := &recordSink{}
		_, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{path}}, sink)
		return sink, err
	}
	want, err := imp("plain.txt", []byte(text))
	if err != nil || len(want.runs) != 1 || len(want.runs[0]) == 0 {
		t.Fatalf("the capture itself: %v", err)
	}
	crlf := strings.ReplaceAll(text, "\n", "\r\n")
	for name, c := range map[string]struct {
		data []byte
		raw  string
	}{
		"utf16le.txt": {utf16LE("\ufeff" + crlf), crlf},
		"cr.txt":      {[]byte(strings.ReplaceAll(text, "\n", "\r")), crlf},
	} {
		got, err := imp(name, c.data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !got.committed || !reflect.DeepEqual(got.runs, want.runs) {
			t.Errorf("%s: committed %v, %d points, want the %d of the capture itself, on the same lines", name, got.committed, len(got.runs[0]), len(want.runs[0]))
		}
		if len(got.raws[0]) != 1 || got.raws[0][0].Stdout != c.raw {
			t.Errorf("%s: raw outputs %d, want one, the text as UTF-8 with \"\\r\\n\"", name, len(got.raws[0]))
		}
	}
	utf32 := []byte{0xff, 0xfe, 0, 0}
	for _, r := range text {
		utf32 = append(utf32, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	got, err := imp("utf32.txt", utf32)
	if !errors.Is(err, opensslspeed.ErrEncoding) || !strings.HasPrefix(err.Error(), filepath.Join(dir, "utf32.txt")+": the text is UTF-32LE") || got.committed {
		t.Errorf("UTF-32: %v, committed %v; want the file named and UTF-32LE, nothing committed", err, got.committed)
	}
}

func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}
