package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"
)

// registerWriter takes the loop's register writes: the SMBus device on the board, a recorder in tests.
type registerWriter interface {
	writeRegister(reg uint8, value uint16) error
}

// powerLoop is the model's state between readings. It keeps /proc/stat open and reads it into one buffer, so a
// reading costs a pread, the arithmetic and a write per register whose value changed: at a steady load, none.
type powerLoop struct {
	model   powerModel
	stat    io.ReaderAt // /proc/stat: a read at offset 0 makes the kernel write it afresh
	dev     registerWriter
	prev    cpuTime
	written [3]uint16 // shunt, current, power as last written, valid where wrote is set
	wrote   [3]bool
	buf     [512]byte // /proc/stat's first line is under 100 bytes on a 6.1 kernel
}

// newPowerLoop takes the first reading, the one the first interval's load is measured from.
func newPowerLoop(m powerModel, stat io.ReaderAt, dev registerWriter) (*powerLoop, error) {
	l := &powerLoop{model: m, stat: stat, dev: dev}
	t, err := l.readCPU()
	if err != nil {
		return nil, err
	}
	l.prev = t
	return l, nil
}

func (l *powerLoop) readCPU() (cpuTime, error) {
	n, err := l.stat.ReadAt(l.buf[:], 0)
	if n == 0 && err != nil {
		return cpuTime{}, fmt.Errorf("read /proc/stat: %w", err)
	}
	line, _, found := bytes.Cut(l.buf[:n], []byte("\n"))
	if !found && n == len(l.buf) {
		return cpuTime{}, fmt.Errorf("/proc/stat: no end to its first line in %d bytes", n)
	}
	return parseCPULine(line)
}

// step is one reading: the power modelled over the time since the previous one, written to the registers that
// changed. A failed read leaves the registers and the previous reading as they were; a failed write is tried again
// at the next step.
func (l *powerLoop) step() error {
	t, err := l.readCPU()
	if err != nil {
		return err
	}
	mw := l.model.mW(l.prev, t)
	l.prev = t
	r, err := registersFor(mw)
	if err != nil {
		return err // start refuses a model whose full load is out of range, so this is a model that changed
	}
	var errs []error
	for i, w := range [3]struct {
		reg   uint8
		value uint16
	}{{regShunt, r.shunt}, {regCurrent, r.current}, {regPower, r.power}} {
		if l.wrote[i] && l.written[i] == w.value {
			continue
		}
		if err := l.dev.writeRegister(w.reg, w.value); err != nil {
			l.wrote[i] = false
			errs = append(errs, err)
			continue
		}
		l.written[i], l.wrote[i] = w.value, true
	}
	return errors.Join(errs...)
}

// run steps every interval, for ever. A failure is said on log when it first happens, not at every reading (the
// loop's stderr is the kernel log on the board), and again once it has cleared and come back.
func (l *powerLoop) run(interval time.Duration, log io.Writer) {
	said := ""
	for {
		time.Sleep(interval)
		err := l.step()
		switch {
		case err == nil:
			said = ""
		case err.Error() != said:
			said = err.Error()
			fmt.Fprintf(log, "lab-power: %s\n", said)
		}
	}
}

// loopMain is `lab-power loop`: the loop start leaves running, on the device and model start checked.
func loopMain(bus, addr uint64, interval time.Duration, m powerModel, log io.Writer) error {
	// One P: the loop has one goroutine, and a second P only adds a thread to wake. Under QEMU's TCG a time.Sleep
	// wake-up costs qemu-arm64 about 1.6 ms of CPU with GOMAXPROCS 1 and 1.7–2.2 ms with 2 (30 sleeps of 282 ms,
	// CPU from getrusage), a C program's nanosleep 0.4–0.5 ms.
	runtime.GOMAXPROCS(1)
	stat, err := os.Open("/proc/stat")
	if err != nil {
		return err
	}
	dev, err := openSMBus(bus, addr)
	if err != nil {
		return err
	}
	l, err := newPowerLoop(m, stat, dev)
	if err != nil {
		return err
	}
	l.run(interval, log)
	return nil
}
