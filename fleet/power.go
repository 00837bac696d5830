package fleet

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
)

// Energy per point from a lab meter (boards.toml power_command): the controller runs the command over and over
// for as long as the board's sweep streams, each run's watts a reading at the middle of the run, and
// integrates the readings over each point's window, which the agent stamps relative to the moment it wrote the
// point's line (so the two clocks need not agree). The board's idle power is measured over the agent's rest
// before the sweep, which ends when its facts are written. A board's own sensor (power = "hwmon:…") is sampled
// by the agent instead and needs nothing here.

// powerCommandInterval is how often the meter is read at most: a meter that answers faster is still read no
// more than once a second (most lab meters update once or twice a second), one that answers slower as often as
// it answers.
const powerCommandInterval = time.Second

// powerCommandTimeout bounds one run of the command: a meter that hangs is a fault, not a stalled sweep.
const powerCommandTimeout = 10 * time.Second

// powerPlan is what the agent is asked for a board: its rail, or windows for the controller's meter, and the
// rest before the sweep as long as one point (seconds, 3 when the profile says nothing).
func powerPlan(b inventory.Board, seconds float64) *protocol.PowerPlan {
	if seconds <= 0 {
		seconds = 3
	}
	switch {
	case b.PowerHwmon != "":
		return &protocol.PowerPlan{Hwmon: b.PowerHwmon, IdleS: seconds}
	case b.PowerCommand != "":
		return &protocol.PowerPlan{IdleS: seconds, Windows: true, Command: b.PowerCommand}
	}
	return nil
}

// controllerPower reads a board's meter over its sweep; a nil one does nothing (no power_command).
type controllerPower struct {
	command string
	trace   *protocol.PowerTrace
	idleW   *float64
	stop    context.CancelFunc
	done    chan struct{}
}

// startControllerPower starts the meter of plan (nil when plan has no command).
func startControllerPower(ctx context.Context, plan *protocol.PowerPlan) *controllerPower {
	if plan == nil || plan.Command == "" {
		return nil
	}
	return startMeter(ctx, plan.Command, powerCommandInterval)
}

// startMeter runs command every interval at most until close.
func startMeter(ctx context.Context, command string, interval time.Duration) *controllerPower {
	ctx, cancel := context.WithCancel(ctx)
	m := &controllerPower{command: command, trace: protocol.NewPowerTrace(false, interval), stop: cancel,
		done: make(chan struct{})}
	go m.loop(ctx)
	return m
}

func (m *controllerPower) loop(ctx context.Context) {
	defer close(m.done)
	for ctx.Err() == nil {
		start := time.Now()
		w, err := readMeter(ctx, m.command)
		end := time.Now()
		mid := start.Add(end.Sub(start) / 2)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			m.trace.Fault(mid, err.Error())
		default:
			m.trace.Add(mid, w)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(start.Add(m.trace.Interval()))):
		}
	}
}

// readMeter runs command once with sh -c and reads watts from the first field of its last line of output.
func readMeter(ctx context.Context, command string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, powerCommandTimeout)
	defer cancel()
	var out, errb bytes.Buffer
	c := exec.CommandContext(ctx, "sh", "-c", command)
	c.Stdout, c.Stderr = &limited{w: &out, n: 4096}, &limited{w: &errb, n: 4096}
	if err := c.Run(); err != nil {
		return 0, fmt.Errorf("power_command %q: %w%s", command, err, tailOf(errb.String()))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	fields := strings.Fields(lines[len(lines)-1])
	if len(fields) == 0 {
		return 0, fmt.Errorf("power_command %q printed nothing (expected watts, such as 4.2)", command)
	}
	w, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return 0, fmt.Errorf("power_command %q printed %q, expected watts (such as 4.2)", command, fields[0])
	}
	return w, nil
}

func tailOf(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return ""
	}
	if len(s) > 200 {
		s = "…" + s[len(s)-200:]
	}
	return ": " + s
}

// limited keeps the first n bytes written to it and discards the rest: a meter that floods is read, not kept.
type limited struct {
	w *bytes.Buffer
	n int
}

func (l *limited) Write(b []byte) (int, error) {
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}

// waitPast waits until the meter has a reading taken after t, at most two intervals and a run's timeout.
func (m *controllerPower) waitPast(t time.Time) {
	deadline := time.Now().Add(2*m.trace.Interval() + powerCommandTimeout/2)
	for m.trace.Latest().Before(t) && time.Now().Before(deadline) {
		select {
		case <-m.done:
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// facts measures the idle power over the agent's rest, which ended as its facts line was written.
func (m *controllerPower) facts(f *protocol.Facts) {
	if m == nil {
		return
	}
	if f.Power == nil {
		f.Power = &protocol.PowerFacts{}
	}
	pf := f.Power
	pf.Source, pf.IntervalS, pf.Unknown = "command", m.trace.Interval().Seconds(), ""
	if pf.IdleS <= 0 {
		pf.Unknown = "idle power: the agent did not rest before the sweep (an agent that predates energy per point)"
		return
	}
	to := time.Now()
	m.waitPast(to)
	r := m.trace.Energy(to.Add(-time.Duration(pf.IdleS*float64(time.Second))), to)
	pf.IdleSamples = r.Samples
	if r.Unknown != "" {
		pf.Unknown = "idle power: " + r.Unknown
		return
	}
	w := r.Joules / r.Seconds
	m.idleW, pf.IdleW = &w, &w
}

// point gives p its energy from the meter over the window the agent stamped on it.
func (m *controllerPower) point(p *protocol.Point) {
	if m == nil {
		return
	}
	w := p.Window
	switch {
	case w == nil && p.EnergyUnknown != "":
		return // the agent said why (a command that measured several points)
	case w == nil:
		p.EnergyUnknown = "the agent sent no window for the point (an agent that predates energy per point)"
		return
	}
	to := time.Now().Add(-time.Duration(w.EndedAgoS * float64(time.Second)))
	from := to.Add(-time.Duration(w.Seconds * float64(time.Second)))
	m.waitPast(to)
	p.SetEnergy(m.trace.Energy(from, to), m.idleW)
}

// close stops the meter and waits for its last run.
func (m *controllerPower) close() {
	if m == nil {
		return
	}
	m.stop()
	<-m.done
}
