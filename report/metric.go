package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// What `fleet regress` and `fleet changes` judge a series by. Throughput (bytes/s, ops/s for asymmetric
// operations) is the default, higher better. Energy is a point's µJ per byte above the board's idle power
// (protocol.Point.EnergyUJPerByte), lower better: a rise is a regression. The energy series are the throughput
// series of the points that carry a figure, with the figure in the place of the throughput
// (EnergyMeasurements), so that grouping, change points, levels and tests are the same code for both; only
// the direction of a verdict and the unit differ.
const (
	MetricThroughput = "throughput"
	MetricEnergy     = "energy"
)

// UnitEnergy is the unit of an energy series.
const UnitEnergy = "µJ/B"

// CheckMetric returns the metric named by s ("" is throughput), or an error naming the choices.
func CheckMetric(s string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", MetricThroughput:
		return MetricThroughput, nil
	case MetricEnergy:
		return MetricEnergy, nil
	}
	return "", fmt.Errorf("metric %q: want %s or %s", s, MetricThroughput, MetricEnergy)
}

// lowerBetter reports whether a smaller value of the metric is the better one.
func lowerBetter(metric string) bool { return metric == MetricEnergy }

// orient turns a change and the range rule's side (positive: the current values are higher) into the same
// figures positive when better: negated for a metric where lower is better.
func orient(metric string, change float64, side int) (gain float64, better int) {
	if lowerBetter(metric) {
		return -change, -side
	}
	return change, side
}

// applyMetric checks opts.Metric (an unknown one is noted and throughput judged) and, for energy, keeps the
// points of base and cur that carry µJ/B, in its place, with a note per board of what was left out.
func (r *Regression) applyMetric(opts *RegressOptions, base, cur []store.Measurement) ([]store.Measurement, []store.Measurement) {
	metric, err := CheckMetric(opts.Metric)
	if err != nil {
		r.Notes = append(r.Notes, err.Error()+": throughput was judged")
		opts.Metric = MetricThroughput
		return base, cur
	}
	if opts.Metric = metric; !lowerBetter(metric) {
		return base, cur
	}
	var nb, nc []string
	base, nb = EnergyMeasurements(base)
	cur, nc = EnergyMeasurements(cur)
	r.Metric, r.Unit = metric, UnitEnergy
	for _, n := range nb {
		r.Notes = append(r.Notes, "baseline: "+n)
	}
	for _, n := range nc {
		r.Notes = append(r.Notes, "current: "+n)
	}
	return base, cur
}

// EnergyMeasurements are the points of ms as energy series: each block-size point's µJ/B in BytesPerSec (where
// every reader of a series takes its value), failed points kept as failed. Points without a figure (the sensor
// could not say, or the board has none), with one at or below zero (below the board's idle power: within the
// sensor's noise, no ratio can be taken of it) and asymmetric operations (no bytes) are left out; notes says,
// per board, how many and why, so that nothing is left out silently.
func EnergyMeasurements(ms []store.Measurement) (out []store.Measurement, notes []string) {
	type count struct {
		unknown, atIdle int
		why             []string
	}
	left := map[string]*count{}
	of := func(board string) *count {
		if left[board] == nil {
			left[board] = &count{}
		}
		return left[board]
	}
	for _, m := range ms {
		if m.BlockSize == 0 {
			continue
		}
		if !m.Failed {
			switch v := m.EnergyUJPerByte; {
			case v == nil || math.IsNaN(*v) || math.IsInf(*v, 0):
				c := of(m.Board)
				c.unknown++
				if m.EnergyUnknown != "" {
					c.why = addString(c.why, m.EnergyUnknown)
				}
				continue
			case *v <= 0:
				of(m.Board).atIdle++
				continue
			}
			m.BytesPerSec = *m.EnergyUJPerByte
		}
		m.OpsPerSec, m.Timing = 0, "" // a CPU-timed throughput's caveat is not the energy's
		out = append(out, m)
	}
	boards := make([]string, 0, len(left))
	for b := range left {
		boards = append(boards, b)
	}
	sort.Strings(boards)
	for _, b := range boards {
		c := left[b]
		if c.unknown > 0 {
			why := "no energy recorded (no power source in boards.toml, or an agent that predates it)"
			if len(c.why) > 0 {
				why = strings.Join(c.why, "; ")
			}
			notes = append(notes, fmt.Sprintf("%s: %d point(s) without energy left out: %s", b, c.unknown, why))
		}
		if c.atIdle > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d point(s) at or below the board's idle power left out (within the sensor's noise)", b, c.atIdle))
		}
	}
	return out, notes
}

// formatEnergyCell prints an energy summary as "median ±spread (n)" in µJ/B.
func formatEnergyCell(s Summary) string {
	if s.N < 2 {
		return fmt.Sprintf("%s (%d)", formatUJ(s.Median), s.N)
	}
	return fmt.Sprintf("%s ±%s (%d)", formatUJ(s.Median), formatPct(s.Spread()), s.N)
}

// valueText prints a change's median before or after it in its series' unit: "182.0 MB/s", "0.0410 µJ/B".
func (c Change) valueText(v float64) string {
	if c.Unit == UnitEnergy {
		return formatUJ(v) + " " + UnitEnergy
	}
	return formatThroughput(v, DefaultUnit, c.Key().Asym())
}
