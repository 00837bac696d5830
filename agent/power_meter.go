package agent

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// hwmonMeter samples one rail at its own interval for as long as a sweep runs, into a trace each point's window
// is integrated from. It keeps the rail's files open and re-reads them from offset 0 (sysfs makes a new reading
// then); a file that fails is closed and opened again at the next tick, so a sensor that vanishes is a fault in
// the trace for as long as it is gone, never a stale figure.
type hwmonMeter struct {
	rail  hwmonRail
	trace *protocol.PowerTrace
	files map[string]*os.File
	buf   []byte
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// startHwmonMeter takes a first reading now and starts the sampler; close stops it.
func startHwmonMeter(rail hwmonRail) *hwmonMeter {
	m := &hwmonMeter{rail: rail, trace: protocol.NewPowerTrace(rail.sensor.Reading == protocol.ReadingEnergy, rail.interval()),
		files: map[string]*os.File{}, buf: make([]byte, 64), stop: make(chan struct{}), done: make(chan struct{})}
	m.sample()
	go m.loop()
	return m
}

func (m *hwmonMeter) loop() {
	defer close(m.done)
	tick := time.NewTicker(m.trace.Interval())
	defer tick.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-tick.C:
			m.sample()
		}
	}
}

func (m *hwmonMeter) sample() {
	v, err := m.rail.read(m.readInt)
	now := time.Now()
	if err != nil {
		m.trace.Fault(now, err.Error())
		return
	}
	m.trace.Add(now, v)
}

// readInt reads an integer file kept open; false when it cannot be read or holds no integer (the file is then
// closed, and opened again next time).
func (m *hwmonMeter) readInt(path string) (int64, bool) {
	f := m.files[path]
	if f == nil {
		var err error
		if f, err = os.Open(path); err != nil {
			return 0, false
		}
		m.files[path] = f
	}
	n, _ := f.ReadAt(m.buf, 0)
	v, err := strconv.ParseInt(string(bytes.TrimSpace(m.buf[:n])), 10, 64)
	if n == 0 || n == len(m.buf) || err != nil {
		f.Close()
		delete(m.files, path)
		return 0, false
	}
	return v, true
}

// waitPast waits until the trace has a reading taken after t, at most two intervals: the end of a window is
// integrated from a reading beyond it where the sensor gives one.
func (m *hwmonMeter) waitPast(t time.Time) {
	deadline := time.Now().Add(2 * m.trace.Interval())
	for m.trace.Latest().Before(t) && time.Now().Before(deadline) {
		time.Sleep(m.trace.Interval() / 4)
	}
}

// settle makes the trace ready to integrate a point's window ending at t without holding the sweep: the
// window's end is held at the last reading (Energy holds an edge for at most one interval) when that reading is
// within an interval of t, as it is while the sampler keeps its pace; only an older one is waited past. Waiting
// for the reading after every point's end (waitPast) cost the points of a command of their own 70 – 150 ms each
// on the QEMU boards (3 – 12 ms without a rail): half an interval on average and a read of the rail, a tenth of
// a 1 s point, paid by the board between its points. The idle window, once a sweep, still waits past its end.
func (m *hwmonMeter) settle(t time.Time) {
	if m.trace.Latest().Before(t.Add(-m.trace.Interval())) {
		m.waitPast(t)
	}
}

// close stops the sampler and waits for it, then closes the files.
func (m *hwmonMeter) close() {
	m.once.Do(func() {
		close(m.stop)
		<-m.done
		for p, f := range m.files {
			f.Close()
			delete(m.files, p)
		}
	})
}
