package reftable

import (
	"errors"
	"strings"
	"testing"
)

// TestCPURangeRead: a CPU-load column in the shape of the throughput column beside it, "98.80 (min 98.00,
// max 99.00)", is read: the mean as the CPU %, the range kept as a flag. It was refused ("a CPU % with a range
// is not read"), and the whole file with it.
func TestCPURangeRead(t *testing.T) {
	r := parseFile(t, "cpu-range-and-skipped.md", Options{Mode: "cpu"})
	for _, c := range []struct {
		size               int
		cpu, cpuMin, cpuMx float64
	}{{16, 98.8, 98, 99}, {16384, 36, 35, 37.5}} {
		e := find(t, r, "am335x-evm", "cpu", "aes-128-cbc", "", c.size, 0)
		min, max, ok := CPURange(e.Flags)
		if e.CPUPct != c.cpu || !ok || min != c.cpuMin || max != c.cpuMx {
			t.Errorf("aes-128-cbc %d B: CPU %g %%, range %g–%g (%v); want %g (min %g, max %g)", c.size, e.CPUPct, min, max, ok,
				c.cpu, c.cpuMin, c.cpuMx)
		}
		if e.PublishedMax == 0 {
			t.Errorf("aes-128-cbc %d B: the throughput's own range is lost: %+v", c.size, e.Point)
		}
	}
	bad := "| Algorithm | Size (bytes) | b: throughput (KBytes/Sec) | b: CPU Load |\n|---|---|---|---|\n" +
		"| aes-128-cbc | 16 | 10 | 90 (min 95, max 99) |\n"
	if _, err := Parse([]byte(bad), Options{File: "t.md", Mode: "cpu"}); err == nil || !strings.Contains(err.Error(), "t.md:3: column \"b: CPU Load\": CPU % 90 not within") {
		t.Errorf("a CPU mean outside its range: %v, want refused at line 3", err)
	}
}

// TestUnreadableTablesSkipped: a table with a ragged row and a last table with its header and no rows are
// skipped, each named by its line, and every figure of the complete table before them is kept. Before, either
// refused the whole file.
func TestUnreadableTablesSkipped(t *testing.T) {
	r := parseFile(t, "cpu-range-and-skipped.md", Options{Mode: "cpu"})
	if len(r.Entries) != 2 || r.Tables != 1 {
		t.Errorf("%d entries from %d tables, want the 2 of the first table", len(r.Entries), r.Tables)
	}
	want := []struct {
		line int
		msg  string
	}{
		{10, "Markdown table skipped, the rest of the file is read: line 13: row of 2 cells"},
		{15, "Markdown table skipped, the rest of the file is read: Markdown table with a header and no rows"},
	}
	if len(r.Skipped) != len(want) {
		t.Fatalf("skipped %v, want %d tables", r.Skipped, len(want))
	}
	for i, w := range want {
		var e *Error
		if !errors.As(r.Skipped[i], &e) || e.Line != w.line || !strings.HasPrefix(e.Msg, w.msg) || e.File != "cpu-range-and-skipped.md" {
			t.Errorf("skipped[%d] = %v, want cpu-range-and-skipped.md:%d: %s…", i, r.Skipped[i], w.line, w.msg)
		}
	}
}

// TestTIGuideWithoutCPURows is TI's AM64x SDK table as a page often reads when pasted: the CPU usage table's
// header is there, its rows are not. The 126 throughput figures are read, without CPU %, and the empty table
// is named.
func TestTIGuideWithoutCPURows(t *testing.T) {
	text := string(mustRead(t, "ti-am64x-sdk-12.00-crypto.txt"))
	head := "Algorithm\tAccelerator (%)\tARM CE (%)\tARM (%)\n"
	i := strings.Index(text, head)
	if i < 0 {
		t.Fatal("the TI table has no CPU usage header")
	}
	line := strings.Count(text[:i], "\n") + 1
	r, err := Parse([]byte(text[:i+len(head)]), Options{File: "ti.txt", Board: "am64x-evm"})
	if err != nil {
		t.Fatalf("Parse = %v, want the throughput table read", err)
	}
	if len(r.Entries) != 126 || r.Tables != 1 {
		t.Errorf("%d entries from %d tables, want 126 from 1", len(r.Entries), r.Tables)
	}
	var e *Error
	if len(r.Skipped) != 1 || !errors.As(r.Skipped[0], &e) || e.Line != line || !strings.Contains(e.Msg, "header and no rows") {
		t.Errorf("skipped = %v, want the CPU table at line %d, empty", r.Skipped, line)
	}
	for _, x := range r.Entries {
		if x.CPUPct != 0 {
			t.Fatalf("%+v has a CPU %% although its table was not read", x.Point)
		}
	}
}

// TestNothingReadRefused: a file none of whose tables can be read is refused, the first table's reason first,
// then the others with their lines; a duplicate across tables skips the later table only.
func TestNothingReadRefused(t *testing.T) {
	const head = "Algorithm\tSize (bytes)\tARM CE (MB/s)\n"
	two := head + "aes-128-cbc\t16\t1\taes\n\n" + "Algorithm\tSize (bytes)\tARM CE\naes-128-cbc\t16\t1\n"
	_, err := Parse([]byte(two), Options{File: "t.txt", Board: "b"})
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || !strings.Contains(e.Msg, "ragged") || !strings.Contains(e.Msg, "the table at line 4: column \"ARM CE\" has no unit") {
		t.Errorf("Parse = %v, want t.txt:2 ragged, and the table at line 4 named", err)
	}
	dup := head + "aes-128-cbc\t16\t1\n\n" + head + "aes-128-cbc\t16\t2\nsha256\t16\t3\n"
	r, err := Parse([]byte(dup), Options{File: "t.txt", Board: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Entries) != 1 || r.Entries[0].BytesPerSec != 1e6 || len(r.Skipped) != 1 || !strings.Contains(r.Skipped[0].Error(), "t.txt:4: tab-separated table skipped, the rest of the file is read: line 5: duplicate figure") {
		t.Errorf("duplicate across tables: %+v, skipped %v; want the first table's figure and the second table skipped", r.Entries, r.Skipped)
	}
}

// TestBadLayoutSkipped: a table whose layout cannot be read (a Markdown table without its separator, a grid
// table with a spanning cell, an application note's row of the wrong width) is skipped at its line, and the
// complete table after it is read.
func TestBadLayoutSkipped(t *testing.T) {
	const good = "Algorithm\tSize (bytes)\tARM CE (MB/s)\naes-128-cbc\t16\t1.5\n"
	for _, c := range []struct {
		name, bad string
		line      int
		want      string
	}{
		{"markdown", "| Algorithm | Size | ARM (MB/s) |\n| aes-128-cbc | 16 | 1 |\n", 1, "separator"},
		{"grid", "+----+----+\n| a  | b  |\n+====+====+\n| a-b-cel |\n+----+----+\n", 1, "line 4: grid table cell spanning columns"},
		{"space-separated", "Table in Mbit/s\nFrame Size (bytes)\n16 64 256\naes-128-gcm 1 2\n", 3, "line 4: row of 2 figures"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Parse([]byte(c.bad+"\n"+good), Options{File: "t.txt", Board: "b", Mode: "cpu"})
			if err != nil {
				t.Fatalf("Parse = %v, want the second table read", err)
			}
			var e *Error
			if len(r.Entries) != 1 || r.Entries[0].BytesPerSec != 1.5e6 || len(r.Skipped) != 1 || !errors.As(r.Skipped[0], &e) ||
				e.Line != c.line || !strings.Contains(e.Msg, c.want) {
				t.Errorf("entries %+v, skipped %v; want the good table's figure and t.txt:%d: …%s…", r.Entries, r.Skipped, c.line, c.want)
			}
		})
	}
}
