package capture

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// recordSink is an ImportSink that keeps what it is given.
type recordSink struct {
	runs      [][]protocol.Point
	raws      [][]protocol.Raw
	facts     []*protocol.Facts // per run, nil without Facts
	sources   []string
	committed bool
	rolled    bool
}

func (s *recordSink) StartRun(_ context.Context, _, source string) error {
	s.runs, s.raws, s.facts, s.sources = append(s.runs, nil), append(s.raws, nil), append(s.facts, nil), append(s.sources, source)
	return nil
}
func (s *recordSink) Facts(_ context.Context, f protocol.Facts) error {
	s.facts[len(s.facts)-1] = &f
	return nil
}
func (s *recordSink) Raw(_ context.Context, r protocol.Raw) error {
	s.raws[len(s.raws)-1] = append(s.raws[len(s.raws)-1], r)
	return nil
}
func (s *recordSink) Skip(context.Context, protocol.Skip) error { return nil }
func (s *recordSink) Point(_ context.Context, p protocol.Point) error {
	s.runs[len(s.runs)-1] = append(s.runs[len(s.runs)-1], p)
	return nil
}
func (s *recordSink) EndRun(context.Context, protocol.Status, string) (int64, error) {
	return int64(len(s.runs)), nil
}
func (s *recordSink) Commit() error   { s.committed = true; return nil }
func (s *recordSink) Rollback() error { s.rolled = true; return nil }

func readCapture(t *testing.T, prefix string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join("..", "opensslspeed", "testdata", "captures", prefix+"_*.txt"))
	if len(m) != 1 {
		t.Fatalf("capture %s: %v", prefix, m)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportKeepsLargeCaptureInPieces: a capture above 1 MiB is kept whole as several raw outputs, each point
// names the one holding its line, and its repeats are numbered in order.
func TestImportKeepsLargeCaptureInPieces(t *testing.T) {
	one := readCapture(t, "L01") + "\n"
	text := strings.Repeat(one, (3<<20)/len(one)+1)
	path := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sink := &recordSink{}
	runs, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{path}}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if !sink.committed || len(runs) != 1 || len(sink.raws) != 1 {
		t.Fatalf("runs %+v, committed %v, %d runs of raws", runs, sink.committed, len(sink.raws))
	}
	var whole strings.Builder
	starts := []int{1}
	for i, r := range sink.raws[0] {
		if r.ID != i+1 || !strings.HasPrefix(r.Command[len(r.Command)-1], "bytes ") {
			t.Errorf("raw %d: id %d, command %q", i+1, r.ID, r.Command)
		}
		whole.WriteString(r.Stdout)
		starts = append(starts, starts[i]+strings.Count(r.Stdout, "\n"))
	}
	if n := len(sink.raws[0]); n < 3 || n > 4 || whole.String() != text {
		t.Fatalf("%d raw outputs, text kept whole %v; want 3 or 4 pieces of the whole text", n, whole.String() == text)
	}
	pts := sink.runs[0]
	if got, want := len(pts), 6*strings.Count(text, "-elapsed"); got != want || runs[0].Points != want {
		t.Errorf("%d points (reported %d), want %d", got, runs[0].Points, want)
	}
	for i, p := range pts {
		if p.RawID < 1 || p.RawID > len(sink.raws[0]) || p.Line < starts[p.RawID-1] || p.Line >= starts[p.RawID] {
			t.Fatalf("point at line %d names raw %d (lines from %v)", p.Line, p.RawID, starts)
		}
		if p.Repeat != i/6 {
			t.Fatalf("point %d: repeat %d, want %d", i, p.Repeat, i/6)
		}
	}
}

// TestImportSplit: --split stores one run per openssl command, the text kept once, with the first.
func TestImportSplit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.txt")
	if err := os.WriteFile(path, []byte(readCapture(t, "L01")+"\n"+readCapture(t, "L04")), 0o644); err != nil {
		t.Fatal(err)
	}
	sink := &recordSink{}
	runs, err := Import(context.Background(), ImportOptions{Board: "b", Files: []string{path}, Split: true}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || len(sink.runs) != 2 || len(sink.raws[0]) != 1 || len(sink.raws[1]) != 0 {
		t.Fatalf("runs %+v; raws per run %d, %d", runs, len(sink.raws[0]), len(sink.raws[1]))
	}
	if runs[0].Points != 6 || runs[1].Points != 2 || sink.runs[1][0].Algorithm != "rsa" {
		t.Errorf("runs %+v, second run's first point %+v", runs, sink.runs[1][0])
	}
}
