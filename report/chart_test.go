package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRegressTickLabelNoExponent: a log axis up to 10 GB/s labelled its top tick "1e+04".
func TestRegressTickLabelNoExponent(t *testing.T) {
	for v, want := range map[float64]string{10000: "10000", 1e6: "1000000", 0.1: "0.1", 0.2 * 3: "0.6", 250: "250"} {
		if got := tickLabel(v); got != want {
			t.Errorf("tickLabel(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestRegressLegendFitsManyLines: with four boards × four modes the legend ran off the bottom of the chart and
// cut long names off at the right edge; the chart now grows to hold it.
func TestRegressLegendFitsManyLines(t *testing.T) {
	c := lineChart{Class: "chart", Title: "t", LogX: true}
	for i := range 16 {
		c.Lines = append(c.Lines, chartLine{Name: fmt.Sprintf("am64xx-evm-1 devcrypto %02d", i),
			Points: []chartPoint{{X: 16, Y: float64(i + 1), Lo: float64(i + 1), Hi: float64(i + 1)}, {X: 16384, Y: 10, Lo: 10, Hi: 10}}})
	}
	svg := c.svg()
	m := regexp.MustCompile(`width="(\d+)" height="(\d+)"`).FindStringSubmatch(svg)
	w, _ := strconv.Atoi(m[1])
	h, _ := strconv.Atoi(m[2])
	last := regexp.MustCompile(`<text x="(\d+)" y="(\d+)" class="legend">am64xx-evm-1 devcrypto 15</text>`).FindStringSubmatch(svg)
	if last == nil {
		t.Fatalf("no legend entry for the 16th line:\n%s", svg)
	}
	x, _ := strconv.Atoi(last[1])
	y, _ := strconv.Atoi(last[2])
	if y > h-4 {
		t.Errorf("16th legend entry at y=%d, below the chart's height %d", y, h)
	}
	if need := x + 7*len("am64xx-evm-1 devcrypto 15"); need > w {
		t.Errorf("legend text ends near x=%d, beyond the chart's width %d", need, w)
	}
	if got := strings.Count(svg, `stroke-dasharray="7 3"`); got < 2*8 {
		t.Errorf("%d dashed strokes, want the 8 lines beyond the palette dashed in the plot and the legend", got)
	}
}
