package report

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
)

// TestVisibleTicksNeverOverlap: whatever the number of runs and the length of their labels, the x labels kept
// are at least their widths apart, stay inside the chart, and the last run is always named.
func TestVisibleTicksNeverOverlap(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 20, 50, 200} {
		for _, label := range []string{"#%d", "#%d nightly", "#%d nightly-kernel-6.6…"} {
			t.Run(fmt.Sprintf("%d runs %q", n, label), func(t *testing.T) {
				chart := lineChart{Class: "history", XLabels: map[float64]string{}}
				var l chartLine
				for i := 1; i <= n; i++ {
					chart.XLabels[float64(i)] = fmt.Sprintf(label, i)
					l.Points = append(l.Points, chartPoint{X: float64(i), Y: 100, Lo: 100, Hi: 100})
				}
				chart.Lines = []chartLine{l}
				checkTicks(t, chart.svg(), fmt.Sprintf(label, n))
			})
		}
	}
	t.Run("block sizes", func(t *testing.T) {
		chart := lineChart{Class: "chart", LogX: true}
		var l chartLine
		for _, s := range []int{16, 64, 256, 1024, 8192, 16384, 65536, 1 << 20, 64 << 20} {
			l.Points = append(l.Points, chartPoint{X: float64(s), Y: 100, Lo: 100, Hi: 100})
		}
		chart.Lines = []chartLine{l}
		checkTicks(t, chart.svg(), "67108864")
	})
}

var xtickRE = regexp.MustCompile(`<text x="([0-9.]+)" y="[0-9]+" class="xtick">([^<]*)</text>`)

func checkTicks(t *testing.T, svg, last string) {
	t.Helper()
	ticks := xtickRE.FindAllStringSubmatch(svg, -1)
	if len(ticks) == 0 {
		t.Fatal("no x labels drawn")
	}
	if got := ticks[len(ticks)-1][2]; got != last {
		t.Errorf("last label %q, want %q", got, last)
	}
	prevRight := -1.0
	for _, tk := range ticks {
		x, _ := strconv.ParseFloat(tk[1], 64)
		w := tickLabelWidth(tk[2])
		if x-w/2 < prevRight {
			t.Errorf("label %q at %.1f overlaps the one before it (ending at %.1f)", tk[2], x, prevRight)
		}
		if x-w/2 < 0 {
			t.Errorf("label %q at %.1f runs off the left edge", tk[2], x)
		}
		prevRight = x + w/2
	}
}
