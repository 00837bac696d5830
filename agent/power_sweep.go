package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// sweepPower is a sweep's energy measurement: the rail it samples on the board (nil when the controller reads a
// meter instead, and the points only carry their windows), the board's idle power, and each point's window
// from its accounting until the point is sent.
type sweepPower struct {
	plan    protocol.PowerPlan
	meter   *hwmonMeter
	idleW   *float64
	why     string // why points carry no energy from the board's own sensor; "" when they do or none was asked for
	pending map[*protocol.Point]pointSpan
}

// pointSpan is when a point ran, from the system samples around it; split says its command gave several points,
// whose energy cannot be told apart.
type pointSpan struct {
	from, to time.Time
	split    bool
}

// probePower is the probe's power facts: every rail the board has, so that `fleet boards check` can list them.
func probePower(root string) *protocol.PowerFacts {
	pf := &protocol.PowerFacts{}
	for _, r := range findPowerRails(root) {
		pf.Sensors = append(pf.Sensors, r.sensor)
	}
	if len(pf.Sensors) == 0 {
		pf.Unknown = "no hwmon power rail under /sys/class/hwmon"
	}
	return pf
}

// remoteHwmonUnknown is why a board measured through its shell has no energy from the hwmon rail boards.toml
// names: the facts the controller stores (remoteFacts) and every point say it.
const remoteHwmonUnknown = "the shell path does not sample the board's hwmon rails (the agent does); a meter the " +
	"controller reads, power_command in boards.toml, measures a shell-path board"

// startPower prepares the sweep's energy measurement before its facts are sent: it finds the plan's rail, starts
// its sampler and keeps the board at rest for the plan's idle time (as long as one point), so that the board's
// idle power is measured (the controller's meter measures it over the same rest). It returns the facts to send.
func (s *sweepState) startPower(ctx context.Context, pf *protocol.PowerFacts) *protocol.PowerFacts {
	if pf == nil {
		pf = probePower(s.root)
	}
	if s.plan.Power == nil {
		if pf.Unknown == "" {
			pf.Unknown = "boards.toml names no power source for the board"
		}
		return pf
	}
	sp := &sweepPower{plan: *s.plan.Power, pending: map[*protocol.Point]pointSpan{}}
	s.power = sp
	if spec := sp.plan.Hwmon; spec != "" {
		rail, err := chooseRail(findPowerRails(s.root), spec)
		switch {
		case s.remote != nil:
			sp.why = remoteHwmonUnknown
		case err != nil:
			sp.why = err.Error()
		default:
			sp.meter = startHwmonMeter(rail)
			pf.Source = fmt.Sprintf("hwmon:%s (%s/%s)", rail.sensor.Spec(), rail.sensor.Device, rail.files[0])
			pf.IntervalS = rail.interval().Seconds()
		}
		pf.Unknown = sp.why
		if err != nil && s.remote == nil {
			// boards.toml names a rail the board does not have: the inventory is wrong, and the run says so as an
			// error. The shell path's is a limit of the path, not a fault: the points say it, the summary once.
			_ = s.errorf("power: %s", sp.why)
		}
	}
	if sp.plan.IdleS > 0 {
		from := time.Now()
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(sp.plan.IdleS * float64(time.Second))):
		}
		to := time.Now()
		pf.IdleS = to.Sub(from).Seconds()
		if sp.meter != nil {
			sp.meter.waitPast(to)
			r := sp.meter.trace.Energy(from, to)
			pf.IdleSamples = r.Samples
			if r.Unknown != "" {
				pf.Unknown = "idle power: " + r.Unknown
			} else {
				w := r.Joules / r.Seconds
				sp.idleW, pf.IdleW = &w, &w
			}
		}
	}
	return pf
}

// window records when p ran, from the samples its accounting used.
func (s *sweepState) window(p *protocol.Point, before, after systemSample, split bool) {
	if s.power == nil || before.Ev.at.IsZero() || after.Ev.at.IsZero() {
		return
	}
	s.power.pending[p] = pointSpan{from: before.Ev.at, to: after.Ev.at, split: split}
}

// stampEnergy gives p, about to be sent, its window and its energy from the board's rail.
func (s *sweepState) stampEnergy(p *protocol.Point) {
	sp := s.power
	if sp == nil {
		return
	}
	span, ok := sp.pending[p]
	delete(sp.pending, p)
	if sp.why != "" { // the rail was asked for and cannot be read: every point says why, never a blank
		p.EnergyUnknown = sp.why
		return
	}
	if !ok {
		if sp.meter != nil {
			p.EnergyUnknown = "the point's wall time was not sampled"
		}
		return
	}
	switch {
	case sp.meter == nil: // the controller's meter (power_command) gives the energy from the window
	case span.split:
		p.EnergyUnknown = "accounting-split: one command measured several points, whose energy cannot be told apart"
	default:
		sp.meter.waitPast(span.to)
		p.SetEnergy(sp.meter.trace.Energy(span.from, span.to), sp.idleW)
	}
	if sp.plan.Windows && span.split {
		p.EnergyUnknown = "accounting-split: one command measured several points, whose energy cannot be told apart"
	} else if sp.plan.Windows {
		p.Window = &protocol.PointWindow{Seconds: span.to.Sub(span.from).Seconds(), EndedAgoS: time.Since(span.to).Seconds()}
	}
}

// stopPower stops the rail's sampler.
func (s *sweepState) stopPower() {
	if s.power != nil && s.power.meter != nil {
		s.power.meter.close()
	}
}
