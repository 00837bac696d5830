package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestImportCapturesInOtherEncodings: `fleet import` of a capture saved as UTF-16 with a byte order mark and
// "\r\n" (Windows PowerShell's `>`), or with lone '\r' line ends, stores the points of the capture itself; a
// UTF-32 one is refused with exit 2 naming the encoding, nothing stored.
func TestImportCapturesInOtherEncodings(t *testing.T) {
	raw, err := os.ReadFile(capturePath(t, "01"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	var le16, le32 []byte
	for _, u := range utf16.Encode([]rune("\ufeff" + strings.ReplaceAll(text, "\n", "\r\n"))) {
		le16 = append(le16, byte(u), byte(u>>8))
	}
	for _, r := range "\ufeff" + text {
		le32 = append(le32, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		data []byte
		code int
		want string
	}{
		{"plain.txt", []byte(text), exitOK, "plain.txt: run 1, 187 points from 1 openssl command(s)"},
		{"utf16le.txt", le16, exitOK, "utf16le.txt: run 1, 187 points from 1 openssl command(s)"},
		{"cr.txt", []byte(strings.ReplaceAll(text, "\n", "\r")), exitOK, "cr.txt: run 1, 187 points from 1 openssl command(s)"},
		{"utf32.txt", le32, exitUsage, "utf32.txt: the text is UTF-32LE, an encoding not read: save the capture as UTF-8 or UTF-16 (nothing stored)"},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		db := filepath.Join(dir, tt.name+".db")
		stdout, stderr, code := runFleet(t, "--db", db, "import", "--board", "b", path)
		said := stderr // an error on stderr, the result of an import on stdout
		if tt.code == exitOK {
			said = stdout
		}
		if code != tt.code || !strings.Contains(unfold(said), tt.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d and %q", tt.name, code, stdout, stderr, tt.code, tt.want)
		}
		if runs := storedRuns(t, db); (len(runs) == 1) != (tt.code == exitOK) {
			t.Errorf("%s: stored %d runs", tt.name, len(runs))
		}
	}
}
