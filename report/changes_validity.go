package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/validity"
)

// rangedCauses are the causes whose reasons carry a percentage right after their name ("background CPU 72 %
// (limit 8 %)", "steal 12 %", "throttled: 22 % of the time below 1000 MHz"): a summary gives their range, the
// figure a reader compares with the limit, where the other causes are named alone.
var rangedCauses = map[string]bool{"background CPU": true, "steal time": true, "throttled": true}

// validityCauses summarizes validity reasons by cause (validity.Cause), in the order they first appear, with the
// range of the percentages the ranged causes report: "background CPU 60–90 %", "governor powersave".
func validityCauses(reasons []string) []string {
	type span struct {
		lo, hi   float64
		loS, hiS string
		any      bool
	}
	var order []string
	spans := map[string]*span{}
	for _, r := range reasons {
		c := validity.Cause(r)
		sp := spans[c]
		if sp == nil {
			sp = &span{}
			spans[c] = sp
			order = append(order, c)
		}
		if !rangedCauses[c] {
			continue
		}
		s, v, ok := firstPercent(r)
		if !ok {
			continue
		}
		if !sp.any || v < sp.lo {
			sp.lo, sp.loS = v, s
		}
		if !sp.any || v > sp.hi {
			sp.hi, sp.hiS = v, s
		}
		sp.any = true
	}
	out := make([]string, 0, len(order))
	for _, c := range order {
		sp := spans[c]
		switch {
		case !sp.any:
			out = append(out, c)
		case sp.loS == sp.hiS:
			out = append(out, fmt.Sprintf("%s %s %%", c, sp.loS))
		default:
			out = append(out, fmt.Sprintf("%s %s–%s %%", c, sp.loS, sp.hiS))
		}
	}
	return out
}

// firstPercent finds the first number followed by "%" (a space between allowed) in s.
func firstPercent(s string) (text string, v float64, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			continue
		}
		j := i
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		rest := strings.TrimLeft(s[j:], " ")
		if strings.HasPrefix(rest, "%") {
			if f, err := strconv.ParseFloat(s[i:j], 64); err == nil {
				return s[i:j], f, true
			}
		}
		i = j
	}
	return "", 0, false
}

// validityAdvice says what makes a board's points valid again, for the causes of validityCauses ("background CPU
// 60–90 %"): ValidityAdvice's words, the one home of that advice (regress and run's summary give the same), for
// the causes' names. Empty without causes.
func validityAdvice(board string, causes []string) string {
	if len(causes) == 0 {
		return ""
	}
	names := make([]string, 0, len(causes))
	for _, c := range causes {
		name := c
		for rc := range rangedCauses {
			if strings.HasPrefix(c, rc+" ") {
				name = rc
			}
		}
		names = append(names, name)
	}
	return ValidityAdvice(board, names)
}
