package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/reftable"
	"github.com/fleetlab/fleet/store"
)

func refPoint(board, mode, alg string, size int, bps, cpu float64) store.Measurement {
	return store.Measurement{RunID: 9, Board: board, Point: protocol.Point{Mode: mode, Algorithm: alg, Op: "encrypt",
		BlockSize: size, Threads: 1, BytesPerSec: bps, CPUPct: cpu}}
}

func measuredPoints(board, mode string, bps ...float64) []store.Measurement {
	var ms []store.Measurement
	for i, v := range bps {
		m := refPoint(board, mode, "aes-128-cbc", 16384, v, 41)
		m.RunID, m.Repeat = 3, i
		ms = append(ms, m)
	}
	return ms
}

var tiRun = store.Run{ID: 9, Label: "ti-am64x-sdk-12.00", Source: "TI guide", Status: protocol.StatusReference}

// TestCompareReferenceAccelerator matches afalg and devcrypto with the reference's accelerator figure, cpu with
// cpu, and prints each as one line: measured, % of the reference, CPU beside the published CPU, n.
func TestCompareReferenceAccelerator(t *testing.T) {
	ref := []store.Measurement{refPoint("am64x-evm", "accelerator", "aes-128-cbc", 16384, 134.93e6, 39),
		refPoint("am64x-evm", "cpu", "aes-128-cbc", 16384, 727.48e6, 99)}
	var ms []store.Measurement
	ms = append(ms, measuredPoints("am64x", "afalg", 131.0e6, 131.2e6, 131.4e6)...)
	ms = append(ms, measuredPoints("am64x", "cpu", 700e6)...)
	ms = append(ms, measuredPoints("am64x", "soft", 30e6)...)
	c, err := CompareReference(ms, tiRun, ref, ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 || len(c.Unmatched) != 1 || c.Unmatched[0].Mode != "soft" {
		t.Fatalf("rows %+v, unmatched %+v; want afalg and cpu matched, soft not", c.Rows, c.Unmatched)
	}
	var b bytes.Buffer
	if err := WriteReference(&b, c, "text"); err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(b.String(), "\n    ", " ") // a line folded at TextWidth, read as one
	for _, want := range []string{
		"am64x afalg aes-128-cbc 16384 B: 131.2 MB/s, 97 % of ti-am64x-sdk-12.00 (134.93), CPU 41 % (published 39 %), n=3",
		"am64x cpu aes-128-cbc 16384 B: 700.0 MB/s, 96 % of ti-am64x-sdk-12.00 (727.48), CPU 41 % (published 99 %), n=1",
		"1 measured series without a figure in ti-am64x-sdk-12.00: am64x soft aes-128-cbc 16384 B",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	// An exact mode wins over the accelerator column.
	ref = append(ref, refPoint("am64x-evm", "afalg", "aes-128-cbc", 16384, 120e6, 0))
	c, err = CompareReference(ms, tiRun, ref, ReferenceOptions{Modes: []string{"afalg"}})
	if err != nil || len(c.Rows) != 1 || c.Rows[0].ReferenceMode != "afalg" || c.Rows[0].Reference != 120e6 {
		t.Errorf("afalg beside %+v, %v; want the reference's own afalg figure", c.Rows, err)
	}
}

// TestCompareReferenceBoards: a reference of several boards matches by name, or by --reference-board, and
// refuses to guess otherwise.
func TestCompareReferenceBoards(t *testing.T) {
	ref := []store.Measurement{refPoint("am335x-evm", "cpu", "aes-128-cbc", 16384, 23.4e6, 36),
		refPoint("am57xx-evm", "cpu", "aes-128-cbc", 16384, 90e6, 40)}
	ms := measuredPoints("am57xx-evm", "cpu", 80e6)
	c, err := CompareReference(ms, tiRun, ref, ReferenceOptions{})
	if err != nil || len(c.Rows) != 1 || c.Rows[0].ReferenceBoard != "am57xx-evm" {
		t.Fatalf("same-name board: %+v, %v", c, err)
	}
	ms = measuredPoints("bbb", "cpu", 20e6)
	if _, err := CompareReference(ms, tiRun, ref, ReferenceOptions{}); err == nil || !strings.Contains(err.Error(), "--reference-board") {
		t.Errorf("board of no reference name: %v, want a request for --reference-board", err)
	}
	c, err = CompareReference(ms, tiRun, ref, ReferenceOptions{Board: "am335x-evm"})
	if err != nil || c.Rows[0].ReferenceBoard != "am335x-evm" || c.Rows[0].Percent < 85 || c.Rows[0].Percent > 86 {
		t.Errorf("--reference-board am335x-evm: %+v, %v", c, err)
	}
	if _, err := CompareReference(ms, tiRun, ref, ReferenceOptions{Board: "nope"}); err == nil {
		t.Error("an unknown --reference-board was accepted")
	}
	if _, err := CompareReference(measuredPoints("bbb", "cpu", 1), tiRun, ref[:1], ReferenceOptions{Algorithms: []string{"sha256"}}); !errors.Is(err, ErrNoReferenceMatch) {
		t.Errorf("nothing matching: %v, want ErrNoReferenceMatch", err)
	}
	measured := store.Run{ID: 3, Status: protocol.StatusOK}
	if _, err := CompareReference(ms, measured, ref, ReferenceOptions{}); err == nil {
		t.Error("a measured run was taken for a reference")
	}
}

// TestCompareReferenceOnlyItsBoard: a one-board reference (TI's AM64x EVM) is set beside the measured board
// of its SoC only; another board (local, an x86 host) is named as not compared, and --reference-board compares
// it on purpose. Before, every stored board was set beside it ("local soft sha256: 882 %"). A point whose CPU
// is unknown shows "CPU –", not "CPU 0 %", a CPU-timed figure keeps its †, the published CPU range is shown,
// and no line is wider than TextWidth.
func TestCompareReferenceOnlyItsBoard(t *testing.T) {
	evm := refPoint("am64x-evm", "cpu", "aes-128-cbc", 16384, 727.48e6, 98.8)
	evm.Flags = []string{reftable.CPURangeFlag(98, 99)}
	ref := []store.Measurement{evm}
	ms := append(measuredPoints("am64x", "cpu", 700e6), measuredPoints("local", "cpu", 6400e6)...)
	imported := measuredPoints("lab7", "cpu", 650e6)
	imported[0].CPUPct, imported[0].Timing = 0, "cpu"
	ms = append(ms, imported...)

	c, err := CompareReference(ms, tiRun, ref, ReferenceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 1 || c.Rows[0].Board != "am64x" || c.Rows[0].Matched != "same SoC am64x" {
		t.Errorf("rows %+v, want am64x only, matched by its SoC", c.Rows)
	}
	if strings.Join(c.NotCompared, ",") != "lab7,local" {
		t.Errorf("not compared %v, want lab7 and local", c.NotCompared)
	}
	// boards.toml says lab7 is an AM64x: compared.
	c, err = CompareReference(ms, tiRun, ref, ReferenceOptions{SoCs: map[string]string{"lab7": "AM64x"}})
	if err != nil || len(c.Rows) != 2 || c.Rows[1].Board != "lab7" {
		t.Fatalf("with lab7's SoC: %+v, %v", c, err)
	}
	var b bytes.Buffer
	if err := WriteReference(&b, c, "text"); err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(b.String(), "\n    ", " ")
	for _, want := range []string{
		"lab7 cpu aes-128-cbc 16384 B: 650.0 MB/s†, 89 % of ti-am64x-sdk-12.00 (727.48), CPU – (published 98.8 %, min 98, max 99)",
		"note: not compared: local (SoC local); ti-am64x-sdk-12.00 is of am64x-evm (SoC am64x)",
		"--reference-board am64x-evm compares",
		"note: † timed on CPU seconds", "CPU –: not known",
	} {
		if !strings.Contains(strings.ReplaceAll(text, "\n  ", " "), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "CPU 0 %") {
		t.Errorf("an unknown CPU printed as 0 %%:\n%s", b.String())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := len([]rune(l)); n > TextWidth {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	b.Reset()
	if err := WriteReference(&b, c, "markdown"); err != nil || !strings.Contains(b.String(), "| 650.0 MB/s† |") || !strings.Contains(b.String(), "| – |") {
		t.Errorf("markdown lacks the † or the unknown CPU (%v):\n%s", err, b.String())
	}

	// --reference-board: every selected board beside the reference's board, on purpose.
	c, err = CompareReference(ms, tiRun, ref, ReferenceOptions{Board: "am64x-evm", Boards: []string{"local"}})
	if err != nil || len(c.Rows) != 1 || c.Rows[0].Board != "local" || c.Rows[0].Matched != "--reference-board" || len(c.NotCompared) != 0 {
		t.Errorf("--reference-board am64x-evm --boards local: %+v, %v", c, err)
	}
	// Only boards of another SoC: refused, saying how to compare them anyway.
	_, err = CompareReference(ms, tiRun, ref, ReferenceOptions{Boards: []string{"local"}})
	if !errors.Is(err, ErrNoReferenceMatch) || !strings.Contains(err.Error(), "--reference-board am64x-evm") {
		t.Errorf("local alone: %v, want refused naming --reference-board", err)
	}
}
