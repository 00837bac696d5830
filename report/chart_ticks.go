package report

import (
	"math"
	"unicode/utf8"
)

// Tick labels of the x axis are 11 px text centred on their tick. tickCharW is a generous average advance of one
// character at that size (DejaVu Sans digits are 0.64 em, 7 px), tickGap the room kept between two labels.
const (
	tickCharW = 7.2
	tickGap   = 8.0
)

// tickLabelWidth is the width a label is assumed to take, never less than it does.
func tickLabelWidth(label string) float64 { return tickCharW * float64(utf8.RuneCountInString(label)) }

// visibleTicks decides which x tick labels are printed so that no two overlap, whatever the number of runs or
// sizes: pos are the ticks' centres in order, labels their text. Evenly spaced ticks (runs) keep every k-th
// label counted back from the last, so the newest run is always named and the named ones stay evenly spaced;
// uneven ticks (block sizes on a log axis) are kept greedily from the right. A label that would run past the
// chart's edges [lo, hi] is dropped.
func visibleTicks(pos []float64, labels []string, lo, hi float64) []bool {
	show := make([]bool, len(pos))
	if len(pos) == 0 {
		return show
	}
	fits := func(i int) bool {
		w := tickLabelWidth(labels[i]) / 2
		return pos[i]-w >= lo && pos[i]+w <= hi
	}
	even := len(pos) > 2
	for i := 2; i < len(pos) && even; i++ {
		even = math.Abs((pos[i]-pos[i-1])-(pos[1]-pos[0])) < 0.5
	}
	if even {
		widest := 0.0
		for _, l := range labels {
			widest = math.Max(widest, tickLabelWidth(l))
		}
		step := max(1, int(math.Ceil((widest+tickGap)/(pos[1]-pos[0]))))
		for i := len(pos) - 1; i >= 0; i -= step {
			show[i] = fits(i)
		}
		return show
	}
	left := math.Inf(1) // the left edge of the last label kept
	for i := len(pos) - 1; i >= 0; i-- {
		w := tickLabelWidth(labels[i]) / 2
		if pos[i]+w+tickGap <= left && fits(i) {
			show[i], left = true, pos[i]-w
		}
	}
	return show
}
