package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// fakeStat is a /proc/stat whose first line the test sets between steps.
type fakeStat struct{ text string }

func (f *fakeStat) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader([]byte(f.text)).ReadAt(p, off)
}

func (f *fakeStat) set(busy, idle uint64) {
	f.text = fmt.Sprintf("cpu  %d 0 0 %d 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\nintr 1 2 3\n", busy, idle)
}

// write is one register write the loop made.
type write struct {
	reg   uint8
	value uint16
}

// recorder takes the loop's writes; failing makes every write fail.
type recorder struct {
	writes  []write
	failing error
}

func (r *recorder) writeRegister(reg uint8, value uint16) error {
	if r.failing != nil {
		return r.failing
	}
	r.writes = append(r.writes, write{reg, value})
	return nil
}

// TestLoopWritesOnChange: each step models the power over the time since the previous one and writes the shunt,
// current and power registers, in that order, only where a value changed: a steady load costs no write at all.
// A failed write is tried again at the next step; a /proc/stat that cannot be read changes nothing.
func TestLoopWritesOnChange(t *testing.T) {
	stat, dev := &fakeStat{}, &recorder{}
	stat.set(100, 900)
	l, err := newPowerLoop(powerModel{idleMW: 2000, perCoreMW: 1000, ncpu: 2}, stat, dev)
	if err != nil {
		t.Fatal(err)
	}
	idle, _ := registersFor(2000)
	busy, _ := registersFor(3000) // one of two cores busy
	all := func(r ina226) []write {
		return []write{{regShunt, r.shunt}, {regCurrent, r.current}, {regPower, r.power}}
	}
	step := func(name string, busyJ, idleJ uint64, want []write) {
		t.Helper()
		stat.set(busyJ, idleJ)
		dev.writes = nil
		if err := l.step(); err != nil {
			t.Fatalf("%s: step: %v", name, err)
		}
		if !slices.Equal(dev.writes, want) {
			t.Errorf("%s: writes %v, want %v", name, dev.writes, want)
		}
	}
	step("first reading, idle", 100, 1100, all(idle))
	step("still idle", 100, 1300, nil)
	step("counters did not move", 100, 1300, nil)
	step("one core busy", 200, 1400, all(busy))
	step("still one core busy", 300, 1500, nil)
	step("counters went back", 10, 100, all(idle))

	dev.failing = errors.New("EIO")
	stat.set(110, 100)
	if err := l.step(); err == nil || !strings.Contains(err.Error(), "EIO") {
		t.Errorf("step with a failing device: %v, want its error", err)
	}
	dev.failing = nil
	step("after a failed write", 120, 110, all(busy))

	stat.text = "garbage\n"
	if err := l.step(); err == nil {
		t.Errorf("step on a garbled /proc/stat: no error")
	}
	step("after a bad read", 130, 120, nil) // from the last good reading: one core busy, as written
}

// TestLoopReadsTheRealProcStat: the loop's first reading works on this machine's /proc/stat, kept open and read
// again at offset 0, as on the board (a test of the kernel's seq_file contract, not of the test's fixture).
func TestLoopReadsTheRealProcStat(t *testing.T) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		t.Skipf("no /proc/stat: %v", err)
	}
	defer f.Close()
	l, err := newPowerLoop(powerModel{idleMW: 1, perCoreMW: 1, ncpu: 1}, f, &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	first := l.prev
	again, err := l.readCPU()
	if err != nil || again.total < first.total || again.total == 0 {
		t.Errorf("second read of /proc/stat = %+v, %v; want a reading at or after %+v", again, err, first)
	}
}

var _ io.ReaderAt = (*fakeStat)(nil)
