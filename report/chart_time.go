package report

import (
	"math"
	"time"
)

// A history on a time axis puts each run at its start, so that a week without runs reads as a gap and two
// runs an hour apart sit together; its ticks are calendar steps, not the runs.

// timeStep is a calendar step of a time axis and how its ticks are labelled.
type timeStep struct {
	d      time.Duration
	layout string
}

// timeSteps are the steps a time axis may take, finest first.
func timeSteps() []timeStep {
	const day = 24 * time.Hour
	return []timeStep{
		{time.Minute, "15:04"}, {5 * time.Minute, "15:04"}, {15 * time.Minute, "15:04"}, {30 * time.Minute, "01-02 15:04"},
		{time.Hour, "01-02 15:04"}, {2 * time.Hour, "01-02 15:04"},
		{3 * time.Hour, "01-02 15:04"}, {6 * time.Hour, "01-02 15:04"}, {12 * time.Hour, "01-02 15:04"},
		{day, "2006-01-02"}, {2 * day, "2006-01-02"}, {7 * day, "2006-01-02"}, {14 * day, "2006-01-02"},
		{30 * day, "2006-01"}, {91 * day, "2006-01"}, {365 * day, "2006"},
	}
}

// timeTicks are at most about n ticks (UTC, whole steps) from lo to hi, seconds since the epoch, and their
// labels. Steps of a day or more start at midnight UTC.
func timeTicks(lo, hi float64, n int) ([]float64, []string) {
	span := time.Duration((hi - lo) * float64(time.Second))
	steps := timeSteps()
	st := steps[len(steps)-1]
	for _, s := range steps {
		if span/s.d <= time.Duration(n) {
			st = s
			break
		}
	}
	step := st.d.Seconds()
	var ticks []float64
	var labels []string
	for v := math.Ceil(lo/step) * step; v <= hi+1e-6; v += step {
		ticks = append(ticks, v)
		labels = append(labels, time.Unix(int64(v), 0).UTC().Format(st.layout))
	}
	return ticks, labels
}

// timeX is a time as a time axis' x: seconds since the epoch.
func timeX(t time.Time) float64 { return float64(t.Unix()) + float64(t.Nanosecond())/1e9 }
