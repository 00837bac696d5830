package report

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/store"
)

// fourBoards is the widest layout the default text must fit: four boards with 12-character names, four modes
// each (soft, cpu and two accelerators, five modes in all), six block sizes, three symmetric algorithms and
// rsa. One board has uneven repeats (n per cell) and a ±12 % spread; the emulated one runs above 1000 MB/s.
func fourBoards() []store.Measurement {
	type path struct {
		mode       string
		peak, half float64 // MB/s at large blocks; the block size at which half of it is reached
		cpu        float64
	}
	boards := []struct {
		name  string
		paths []path
		n     int
	}{
		{"am335x-bbblk", []path{{"devcrypto", 38, 2048, 85}, {"afalg", 30, 4096, 90}, {"cpu", 21, 16, 100}, {"soft", 18, 16, 100}}, 5},
		{"am64xx-evm-1", []path{{"devcrypto", 182, 1024, 38}, {"kcapi", 170, 1536, 35}, {"cpu", 121, 16, 100}, {"soft", 24, 16, 100}}, 5},
		{"imx6q-sabrsd", []path{{"afalg", 95, 512, 60}, {"kcapi", 88, 768, 55}, {"cpu", 46, 16, 100}, {"soft", 39, 16, 100}}, 0},
		{"qemu-arm64-a", []path{{"afalg", 1400, 4096, 100}, {"kcapi", 1350, 2048, 100}, {"cpu", 1650, 16, 100}, {"soft", 310, 16, 100}}, 3},
	}
	algs := []struct {
		name, op string
		factor   float64
	}{{"aes-128-cbc", "encrypt", 1}, {"aes-256-cbc", "encrypt", 0.72}, {"sha256", "digest", 1.9}}
	var ss []series
	for bi, b := range boards {
		for pi, p := range b.paths {
			for ai, a := range algs {
				for si, size := range []int{16, 64, 256, 1024, 8192, 16384} {
					n := b.n
					if n == 0 {
						n = 3 + (pi+si)%8 // uneven: 3 to 10 repeats
					}
					v := p.peak * a.factor * 1e6 * float64(size) / float64(size+int(p.half))
					vals := jitter(v, n, bi+pi+ai+si)
					if b.n == 0 && si == 5 {
						vals[0] *= 0.88 // one slow repeat: ±12 %
					}
					ss = append(ss, series{board: b.name, mode: p.mode, alg: a.name, op: a.op, size: size, values: vals, cpu: p.cpu})
				}
			}
			if p.mode == "cpu" || p.mode == "soft" {
				for oi, op := range []string{"sign", "verify"} {
					v := []float64{421.3, 15512}[oi] * p.peak / 121
					ss = append(ss, series{board: b.name, mode: p.mode, alg: "rsa", op: op, bits: 2048, values: jitter(v, 5, oi), cpu: 100})
				}
			}
		}
	}
	return build(20, "lab", curStarted, ss)
}

func TestCompareFourBoardsLayouts(t *testing.T) {
	c, err := Compare(fourBoards(), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, format string
		layout       Layout
	}{
		{"compare_four_boards.txt", "text", Layout{}},
		{"compare_four_boards_size1024.txt", "text", Layout{Size: 1024}},
		{"compare_four_boards_wide.txt", "text", Layout{Wide: true}},
		{"compare_four_boards.md", "markdown", Layout{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteCompareLayout(&b, c, tc.format, tc.layout); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, tc.name+".golden", b.Bytes())
		})
	}
}

// TestCompareTextFitsTerminal: the default text of `fleet compare` and the end of `fleet run` are no wider than
// 100 columns for four boards × four modes, in every unit (nor than 80 when the terminal is that wide), while the
// wide layout of the same data is not (so the fixture is wide enough to tell).
func TestCompareTextFitsTerminal(t *testing.T) {
	ms := fourBoards()
	for _, unit := range Units {
		c, err := Compare(ms, CompareOptions{Unit: unit})
		if err != nil {
			t.Fatal(err)
		}
		var def, wide, sweep bytes.Buffer
		if err := WriteCompare(&def, c, "text"); err != nil {
			t.Fatal(err)
		}
		if err := WriteCompareLayout(&wide, c, "text", Layout{Wide: true}); err != nil {
			t.Fatal(err)
		}
		if err := WriteSweepTables(&sweep, ms, unit, Layout{}); err != nil {
			t.Fatal(err)
		}
		for name, out := range map[string]string{"compare": def.String(), "run": sweep.String()} {
			if w, line := widest(out); w > TextWidth {
				t.Errorf("%s in %s: a line is %d columns wide, want ≤ %d:\n%s", name, unit, w, TextWidth, line)
			}
			if !strings.Contains(out, "board against board") {
				t.Errorf("%s in %s: no board-against-board table", name, unit)
			}
		}
		var narrow bytes.Buffer
		if err := WriteCompareLayout(&narrow, c, "text", Layout{Width: 80}); err != nil {
			t.Fatal(err)
		}
		if w, line := widest(narrow.String()); w > 80 {
			t.Errorf("compare in %s for an 80-column terminal: a line is %d columns wide:\n%s", unit, w, line)
		}
		if w, _ := widest(wide.String()); w <= TextWidth {
			t.Errorf("wide layout in %s is only %d columns: the fixture does not test the limit", unit, w)
		}
	}
}

func widest(s string) (int, string) {
	w, line := 0, ""
	for _, l := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(l); n > w {
			w, line = n, l
		}
	}
	return w, line
}

func TestCompareSizeNotMeasured(t *testing.T) {
	c, err := Compare(fourBoards(), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = WriteCompareLayout(&bytes.Buffer{}, c, "text", Layout{Size: 999})
	if !errors.Is(err, ErrSizeNotMeasured) {
		t.Fatalf("size 999: error = %v, want ErrSizeNotMeasured", err)
	}
	if want := "16, 64, 256, 1024, 8192, 16384"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not list the sizes measured (%s)", err, want)
	}
}

// TestBoardsTableNeedsTwoBoards: an algorithm only one board measured gets no board-against-board table (its
// own table says it all), and the layout still sets the boards against each other where both measured.
func TestBoardsTableNeedsTwoBoards(t *testing.T) {
	c, err := Compare(append(baseline(), s00()...), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "text"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "board against board") {
		t.Errorf("board-against-board table for algorithms measured on one board only:\n%s", b.String())
	}
}

func TestTableFitSplitsBetweenGroups(t *testing.T) {
	tb := table{Title: "t", Header: []string{"size"}, Left: 1, Groups: []group{{"", 1}}, Notes: []string{"note"}}
	for g := 0; g < 4; g++ {
		tb.Header = append(tb.Header, "MB/s", "CPU")
		tb.Groups = append(tb.Groups, group{fmt.Sprintf("mode%d", g), 2})
	}
	tb.Rows = [][]string{{"16 B", "1234567 ±12% (10)", "100%", "1", "2", "3", "4", "5", "6"}}
	parts := tb.fitText(30)
	if got, want := len(parts), 3; got != want {
		t.Fatalf("split into %d tables, want %d: %+v", got, want, parts)
	}
	for i, p := range parts {
		if w := spanWidth(p.widths()); w > 30 {
			t.Errorf("part %d is %d wide, want ≤ 30", i, w)
		}
		if p.Header[0] != "size" || p.Rows[0][0] != "16 B" {
			t.Errorf("part %d does not repeat the label column: %v %v", i, p.Header, p.Rows[0])
		}
	}
	if parts[0].Title != "t" || parts[1].Title != "t (continued)" || len(parts[2].Notes) != 1 || len(parts[0].Notes) != 0 {
		t.Errorf("titles and notes: %q %q, notes %v %v", parts[0].Title, parts[1].Title, parts[0].Notes, parts[2].Notes)
	}
}

// TestBoardsTableDefaultsToSharedSize: with no size chosen, boards are set against each other at the largest
// block size at least two of them measured (8192 B, the largest of OpenSSL 1.0's), not at a size only one has.
func TestBoardsTableDefaultsToSharedSize(t *testing.T) {
	var ss []series
	for _, size := range []int{16, 1024, 8192, 16384} {
		ss = append(ss, series{board: "local", mode: "cpu", alg: "aes-256-cbc", op: "encrypt", size: size,
			values: jitter(float64(size)*1e4, 3, 0), cpu: 100})
	}
	c, err := Compare(append(s00(), build(2, "", curStarted, ss)...), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "aes-256-cbc at 8192 B, board against board") {
		t.Errorf("no board-against-board table at 8192 B:\n%s", b.String())
	}
}

// TestTableFitWrapsTitleOnLines: a title wrapped to fit is printed on several lines, not joined by a literal "\n".
func TestTableFitWrapsTitleOnLines(t *testing.T) {
	title := "am335x-beaglebone-black-industrial-rev-c aes-256-cbc (MB/s, n = 1; CPU % of one core)"
	d := document{Width: TextWidth, Tables: []table{{Title: title, Header: []string{"size", "MB/s"}, Left: 1,
		Rows: [][]string{{"16 B", "7.463"}}}}}
	var b bytes.Buffer
	if err := d.writeText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, `\n`) {
		t.Errorf("wrapped title shows a literal \\n:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	if got, want := strings.Join(lines[:2], " "), title; got != want {
		t.Errorf("title lines %q, want %q over two lines", lines[:2], want)
	}
}
