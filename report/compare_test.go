package report

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/fleetlab/fleet/internal/golden"
)

func TestCompareS00(t *testing.T) {
	c, err := Compare(s00(), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(c.Columns), 2; got != want {
		t.Fatalf("columns = %v, want %d", c.Columns, want)
	}
	if got, want := c.Columns[0].Name(), "am335x devcrypto"; got != want {
		t.Errorf("first column = %q, want %q (accelerators first)", got, want)
	}
	var at8192 *CompareRow
	for i := range c.Rows {
		if c.Rows[i].BlockSize == 8192 {
			at8192 = &c.Rows[i]
		}
	}
	if at8192 == nil {
		t.Fatal("no 8192 B row")
	}
	ratio, ok := at8192.speedup(SpeedupColumn{Board: "am335x", Mode: "devcrypto", Over: "cpu"})
	if !ok {
		t.Fatal("no devcrypto/cpu speedup at 8192 B")
	}
	// 2460 × 8192 B ÷ 3 s over 3029 × 8192 B ÷ 3 s: the accelerator was slower, not 240× faster.
	if want := 2460.0 / 3029.0; math.Abs(ratio-want) > 1e-12 {
		t.Errorf("speedup at 8192 B = %v, want %v", ratio, want)
	}
	if got, want := formatSpeedup(ratio), "0.81×"; got != want {
		t.Errorf("printed speedup = %q, want %q", got, want)
	}
	if got, want := len(c.Crossovers), 1; got != want {
		t.Fatalf("crossovers = %v, want %d", c.Crossovers, want)
	}
	if x := c.Crossovers[0]; !x.Never {
		t.Errorf("crossover = %v, want never (cryptodev is slower at every size)", x)
	}
	if !at8192.Cells[0].CPUTimed {
		t.Error("cryptodev cell not marked as CPU-timed")
	}
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		var b bytes.Buffer
		if err := WriteCompare(&b, c, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "compare_s00."+ext(format)+".golden", b.Bytes())
	}
}

func ext(format string) string {
	switch format {
	case "markdown":
		return "md"
	case "text":
		return "txt"
	}
	return format
}

func TestCompareSynthetic(t *testing.T) {
	ms := append(baseline(), s00()...)
	c, err := Compare(ms, CompareOptions{Unit: "MiB/s"})
	if err != nil {
		t.Fatal(err)
	}
	// devcrypto beats cpu on the am64x from 16384 B only (1.9/78.3, 60.2/112.7, 182.4/120.5).
	found := false
	for _, x := range c.Crossovers {
		if x.Board == "am64x" && x.Algorithm == "aes-128-cbc" {
			found = true
			if x.Never || x.BlockSize != 16384 {
				t.Errorf("am64x aes-128-cbc crossover = %v, want 16384 B", x)
			}
		}
	}
	if !found {
		t.Error("no am64x aes-128-cbc crossover")
	}
	if got, want := len(c.AsymRows), 2; got != want {
		t.Errorf("asymmetric rows = %d, want %d", got, want)
	}
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		var b bytes.Buffer
		if err := WriteCompare(&b, c, format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "compare_two_boards."+ext(format)+".golden", b.Bytes())
	}
}

func TestCompareFilterAndErrors(t *testing.T) {
	c, err := Compare(baseline(), CompareOptions{Modes: []string{"soft", "devcrypto"}, Algorithms: []string{"sha256"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(c.Columns), 1; got != want {
		t.Errorf("columns = %v, want only devcrypto (soft has no sha256)", c.Columns)
	}
	if got := len(c.SpeedupColumns); got != 0 {
		t.Errorf("speedup columns = %v, want none without cpu or soft", c.SpeedupColumns)
	}
	c, err = Compare(baseline(), CompareOptions{Modes: []string{"soft", "cpu", "devcrypto"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Columns[0].Mode, "soft"; got != want {
		t.Errorf("first column mode = %q, want %q (the order given)", got, want)
	}
	if _, err := Compare(baseline(), CompareOptions{Boards: []string{"nope"}}); !errors.Is(err, ErrNoMeasurements) {
		t.Errorf("Compare(unknown board) error = %v, want ErrNoMeasurements", err)
	}
	if _, err := Compare(baseline(), CompareOptions{Unit: "furlongs"}); err == nil {
		t.Error("Compare(unit furlongs) succeeded, want an error")
	}
	if err := WriteCompare(&bytes.Buffer{}, c, "yaml"); err == nil {
		t.Error("WriteCompare(yaml) succeeded, want an error")
	}
}
