package opensslspeed

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestScannerReturnsRunsAsTheyEnd: the Scanner hands out a run as soon as the next one starts, without reading
// the rest of the text, which is what keeps the memory of an import bounded whatever the capture's size.
func TestScannerReturnsRunsAsTheyEnd(t *testing.T) {
	first := readSpeedFixture(t, "L01")
	pr, pw := io.Pipe()
	s := NewScanner(pr, Hint{})
	go func() {
		io.WriteString(pw, first+"\n$ openssl speed -elapsed -evp sha256\n\n")
		// the rest of the capture is not written until the first run was returned
	}()
	got := make(chan bool)
	go func() { got <- s.Scan() }()
	select {
	case ok := <-got:
		if !ok {
			t.Fatalf("Scan = false, %v", s.Err())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Scan waited for the end of the text to return the first run")
	}
	if r := s.Run(); len(r.Points) != 6 || r.Points[0].Algorithm != "aes-128-cbc" {
		t.Fatalf("first run: %+v", r)
	}
	go func() {
		io.WriteString(pw, "Doing sha256 for 3s on 16 size blocks: 5000 sha256's in 3.00s\n")
		pw.Close()
	}()
	if !s.Scan() || s.Run().Points[0].Algorithm != "sha256" {
		t.Fatalf("second run: %+v, %v", s.Run(), s.Err())
	}
	if s.Scan() || s.Err() != nil {
		t.Errorf("after the end: Scan true or error %v", s.Err())
	}
}

// TestScannerSkipsOverlongLines: a line longer than MaxLineBytes (a blob in a pasted log) is skipped with a
// warning instead of being held in memory, and what follows is read.
func TestScannerSkipsOverlongLines(t *testing.T) {
	text := strings.Repeat("x", 3*MaxLineBytes) + "\n" + readSpeedFixture(t, "L01")
	runs, err := Parse(text, Hint{})
	if err != nil || len(runs) != 1 || len(runs[0].Points) != 6 {
		t.Fatalf("Parse = %+v, %v", runs, err)
	}
	if w := strings.Join(runs[0].Warnings, "\n"); !strings.Contains(w, "line 1: longer than 64 KiB") {
		t.Errorf("warnings %q, want the skipped line", w)
	}
	plain, err := Parse(readSpeedFixture(t, "L01"), Hint{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := runs[0].Points[0].Line, plain[0].Points[0].Line+1; got != want {
		t.Errorf("first point at line %d, want %d (lines counted past the skipped one)", got, want)
	}
}
