package protocol

import (
	"fmt"
	"math"
	"sort"
	"sync"
	"time"
)

// PowerTrace is the readings of one power source over a sweep, taken by a sampler (the agent's of a hwmon
// rail, the controller's of a meter command) and integrated over each point's window. It is safe for one
// sampler and any number of readers at once. It keeps the readings of the last keep of time: a point's window
// is never older than its job, and a sweep of hours must not grow without bound.
type PowerTrace struct {
	mu       sync.Mutex
	start    time.Time
	counter  bool          // the readings are a cumulative energy counter (joules), else power (watts)
	interval time.Duration // the source's update interval: readings are never taken faster
	keep     time.Duration
	samples  []traceSample
	faults   []traceFault
}

type traceSample struct{ at, v float64 } // seconds since start; watts or joules

type traceFault struct {
	at  float64
	why string
}

// EnergyReading is a window's energy: Joules over Seconds from Samples readings, or Unknown with the reason.
// Short says the window lasted fewer than MinPowerIntervals of the source (Unknown says so too).
type EnergyReading struct {
	Joules  float64
	Seconds float64
	Samples int
	Short   bool
	Unknown string
}

// NewPowerTrace returns an empty trace of a source read every interval; counter says its readings are joules
// of a cumulative counter (hwmon energy*_input), else watts.
func NewPowerTrace(counter bool, interval time.Duration) *PowerTrace {
	return &PowerTrace{start: time.Now(), counter: counter, interval: interval, keep: 2 * time.Hour}
}

// Interval is the source's update interval.
func (t *PowerTrace) Interval() time.Duration { return t.interval }

// Add records a reading taken at at. A value no board can give (not finite, negative, above MaxBoardWatts, a
// counter that goes backwards) is recorded as a fault: the windows it falls in are unknown, with the reason.
func (t *PowerTrace) Add(at time.Time, v float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := at.Sub(t.start).Seconds()
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
		t.faults = append(t.faults, traceFault{s, fmt.Sprintf("the sensor read %v", v)})
		return
	case !t.counter && v > MaxBoardWatts:
		t.faults = append(t.faults, traceFault{s, fmt.Sprintf("the sensor read %.4g W, above any board's %d W", v, MaxBoardWatts)})
		return
	}
	if n := len(t.samples); n > 0 {
		last := t.samples[n-1]
		if s <= last.at {
			return // a clock that did not move: the reading adds nothing
		}
		if t.counter && v < last.v {
			t.faults = append(t.faults, traceFault{s, fmt.Sprintf("the energy counter went back from %.6g J to %.6g J", last.v, v)})
			t.samples = t.samples[:0] // a counter reset: what follows starts again
		} else if t.counter && (v-last.v)/(s-last.at) > MaxBoardWatts {
			t.faults = append(t.faults, traceFault{s, fmt.Sprintf("the energy counter rose %.4g J in %.3g s, above any board's %d W",
				v-last.v, s-last.at, MaxBoardWatts)})
			return
		}
	}
	t.samples = append(t.samples, traceSample{s, v})
	t.prune(s)
}

// Fault records that the source could not be read at at (a sensor that vanished, a meter that failed).
func (t *PowerTrace) Fault(at time.Time, why string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.faults = append(t.faults, traceFault{at.Sub(t.start).Seconds(), why})
	t.prune(at.Sub(t.start).Seconds())
}

func (t *PowerTrace) prune(now float64) {
	cut := now - t.keep.Seconds()
	if len(t.samples) > 0 && t.samples[0].at < cut-t.keep.Seconds()/2 {
		i := sort.Search(len(t.samples), func(i int) bool { return t.samples[i].at >= cut })
		t.samples = append(t.samples[:0], t.samples[i:]...)
	}
	if len(t.faults) > 0 && t.faults[0].at < cut-t.keep.Seconds()/2 {
		i := sort.Search(len(t.faults), func(i int) bool { return t.faults[i].at >= cut })
		t.faults = append(t.faults[:0], t.faults[i:]...)
	}
}

// Latest is when the source was last read, a reading or a fault (the zero time when never).
func (t *PowerTrace) Latest() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := math.Inf(-1)
	if n := len(t.samples); n > 0 {
		last = t.samples[n-1].at
	}
	if n := len(t.faults); n > 0 {
		last = max(last, t.faults[n-1].at)
	}
	if math.IsInf(last, -1) {
		return time.Time{}
	}
	return t.start.Add(time.Duration(last * float64(time.Second)))
}

// Energy integrates the readings over [from, to]: power by the trapezoid rule, a counter by its difference,
// each linearly interpolated at the window's ends (and held, at the slope of the edge, for at most one interval
// beyond the first or last reading). A window shorter than MinPowerIntervals intervals, one with a fault in it,
// or one the readings do not cover is unknown, with the reason.
func (t *PowerTrace) Energy(from, to time.Time) EnergyReading {
	t.mu.Lock()
	defer t.mu.Unlock()
	t0, t1 := from.Sub(t.start).Seconds(), to.Sub(t.start).Seconds()
	r := EnergyReading{Seconds: t1 - t0}
	iv := t.interval.Seconds()
	if !(r.Seconds > 0) {
		r.Unknown = "the point has no wall time"
		return r
	}
	if r.Seconds < MinPowerIntervals*iv {
		r.Short = true
		r.Unknown = fmt.Sprintf("the point's %.3g s is shorter than %d intervals of the sensor (%v each): not integrated",
			r.Seconds, MinPowerIntervals, t.interval)
		return r
	}
	for i := len(t.faults) - 1; i >= 0; i-- { // the latest fault in the window says most of the source now
		if f := t.faults[i]; f.at >= t0-iv && f.at <= t1+iv {
			r.Unknown = f.why
			return r
		}
	}
	lo := sort.Search(len(t.samples), func(i int) bool { return t.samples[i].at >= t0-iv })
	hi := sort.Search(len(t.samples), func(i int) bool { return t.samples[i].at > t1+iv })
	s := t.samples[lo:hi]
	for _, x := range s {
		if x.at >= t0 && x.at <= t1 {
			r.Samples++
		}
	}
	switch {
	case len(s) < 2 || r.Samples < 1:
		r.Unknown = fmt.Sprintf("%d readings of the sensor in the point's %.3g s", r.Samples, r.Seconds)
		return r
	case s[0].at > t0+iv/2 || s[len(s)-1].at < t1-iv:
		r.Unknown = fmt.Sprintf("the sensor's readings cover %.3g–%.3g s of the point's %.3g–%.3g s", s[0].at, s[len(s)-1].at, t0, t1)
		return r
	}
	cum := make([]float64, len(s)) // joules since s[0]
	for i := 1; i < len(s); i++ {
		if t.counter {
			cum[i] = s[i].v - s[0].v
		} else {
			cum[i] = cum[i-1] + (s[i-1].v+s[i].v)/2*(s[i].at-s[i-1].at)
		}
	}
	r.Joules = t.cumulative(s, cum, t1) - t.cumulative(s, cum, t0)
	return r
}

// cumulative is the energy since s[0] at time at, interpolated between readings, extrapolated at the edge's
// power beyond them.
func (t *PowerTrace) cumulative(s []traceSample, cum []float64, at float64) float64 {
	i := sort.Search(len(s), func(i int) bool { return s[i].at >= at })
	switch {
	case i == 0:
		return cum[0] - t.edgeWatts(s, cum, 0)*(s[0].at-at)
	case i == len(s):
		n := len(s) - 1
		return cum[n] + t.edgeWatts(s, cum, n)*(at-s[n].at)
	}
	a, b := i-1, i
	f := (at - s[a].at) / (s[b].at - s[a].at)
	if t.counter {
		return cum[a] + f*(cum[b]-cum[a])
	}
	// trapezoid to at, the power interpolated there
	pw := s[a].v + f*(s[b].v-s[a].v)
	return cum[a] + (s[a].v+pw)/2*(at-s[a].at)
}

// edgeWatts is the power at reading i, the first or the last: its own value, or a counter's slope beside it.
func (t *PowerTrace) edgeWatts(s []traceSample, cum []float64, i int) float64 {
	if !t.counter {
		return s[i].v
	}
	j := i + 1
	if i > 0 {
		j = i - 1
	}
	return (cum[i] - cum[j]) / (s[i].at - s[j].at)
}
