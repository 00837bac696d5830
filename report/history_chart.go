package report

import "fmt"

// historyChart draws history points as one line per series over runs (x: the runs in order), the median of
// each run with min-max whiskers; href, when not nil, links each point to its run. ok is false without points.
func historyChart(name string, points []historyPoint, unit string, href func(run int64) string) (lineChart, bool) {
	return historyChartOn(name, points, unit, href, historyX(points, false))
}

// historyX places each run of points on the x axis: at its start time (timeX) when onTime, else numbered
// 1, 2, … oldest first (historyRunIndex).
func historyX(points []historyPoint, onTime bool) map[int64]float64 {
	if !onTime {
		return historyRunIndex(points)
	}
	out := map[int64]float64{}
	for _, p := range points {
		out[p.RunID] = timeX(p.Started)
	}
	return out
}

// historyChartOn is historyChart with the runs at the x of runX (historyX): time or run number.
func historyChartOn(name string, points []historyPoint, unit string, href func(run int64) string, runX map[int64]float64) (lineChart, bool) {
	if len(points) == 0 {
		return lineChart{}, false
	}
	chart := lineChart{Class: "history", Title: name, XTitle: "run", YTitle: unit, XLabels: map[float64]string{}}
	onTime := !points[0].Started.IsZero() && runX[points[0].RunID] == timeX(points[0].Started)
	if onTime {
		chart.XTitle, chart.TimeX = "run start (UTC)", true
	}
	lines := map[SampleKey]*chartLine{}
	var order []SampleKey
	runIndex := runX
	sameSeries := true // then the legend only needs board and mode
	for _, p := range points {
		k := p.Key
		first := points[0].Key
		if k.Algorithm != first.Algorithm || k.Op != first.Op || k.BlockSize != first.BlockSize ||
			k.KeyBits != first.KeyBits || k.Curve != first.Curve || k.Threads != first.Threads {
			sameSeries = false
		}
	}
	for _, p := range points {
		l := lines[p.Key]
		if l == nil {
			name := p.Key.Label()
			if sameSeries {
				name = p.Key.Board + " " + p.Key.Mode
			}
			l = &chartLine{Name: name}
			lines[p.Key] = l
			order = append(order, p.Key)
		}
		x := runIndex[p.RunID]
		s := p.Summary
		scale := func(v float64) float64 {
			if p.Key.Asym() {
				return v
			}
			return inUnit(v, unit)
		}
		chart.XLabels[x] = shorten(runLabel(p.RunID, p.Label), 20) // long labels would overlap their neighbours
		if onTime {
			chart.XLabels[x] = p.Started.UTC().Format("2006-01-02 15:04") // a lone run's one tick
		}
		run := runLabel(p.RunID, p.Label)
		if onTime {
			run += ", " + p.Started.UTC().Format("2006-01-02 15:04")
		}
		cp := chartPoint{X: x, Y: scale(s.Median), Lo: scale(s.Min), Hi: scale(s.Max),
			Tooltip: fmt.Sprintf("run %s: %s", run, formatCell(s, unit, p.Key.Asym())), Invalid: p.Invalid}
		if href != nil {
			cp.Href = href(p.RunID)
		}
		l.Points = append(l.Points, cp)
	}
	for _, k := range order {
		chart.Lines = append(chart.Lines, *lines[k])
	}
	return chart, true
}

// historyRunIndex numbers the runs of history points 1, 2, … in the order the points come (oldest first).
func historyRunIndex(points []historyPoint) map[int64]float64 {
	runIndex := map[int64]float64{}
	for _, p := range points {
		if _, ok := runIndex[p.RunID]; !ok {
			runIndex[p.RunID] = float64(len(runIndex) + 1)
		}
	}
	return runIndex
}

// shorten cuts s to at most n runes, marking the cut with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
