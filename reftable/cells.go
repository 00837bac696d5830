package reftable

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/fleetlab/fleet/opensslspeed"
)

// value is one cell's figure: a number, or "mean (min m, max M)" as the older guides print it.
type value struct {
	mean, min, max float64
	hasRange       bool
	percent        bool // written with a '%'
}

const numberPat = `([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)`

var (
	valueRE = regexp.MustCompile(`^(?i:mean\s*)?` + numberPat + `\s*(%)?\s*(?:\(\s*(?i:min)\s*:?\s*` + numberPat +
		`\s*,\s*(?i:max)\s*:?\s*` + numberPat + `\s*\))?$`)
	groupingRE = regexp.MustCompile(`^[0-9]+,[0-9]`)
	sizeRE     = regexp.MustCompile(`^([0-9]+)\s*(?i:bytes?|b)?$`)
	algRE      = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)
)

// maxAlgorithmBytes bounds an algorithm's name: OpenSSL's longest (aes-256-cbc-hmac-sha256, id-aes256-wrap-pad)
// are near 25 bytes; a longer cell is no name, and storing it would carry it into every message and page.
const maxAlgorithmBytes = 64

// maxQuotedBytes is how much of a cell a message quotes: a hostile cell may be a whole line of 64 KiB.
const maxQuotedBytes = 60

// cutCell is s cut to maxQuotedBytes (at a character's start), "…" marking the cut.
func cutCell(s string) string {
	if len(s) <= maxQuotedBytes {
		return s
	}
	n := maxQuotedBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// quoteCell quotes a cell for a message as %q does, cut to maxQuotedBytes with its length said.
func quoteCell(s string) string {
	if len(s) <= maxQuotedBytes {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s (%d bytes)", strconv.Quote(strings.TrimSuffix(cutCell(s), "…"))+"…", len(s))
}

// notPublished are the cells of a figure the vendor did not publish.
var notPublished = map[string]bool{"": true, "-": true, "–": true, "—": true, "n/a": true, "na": true}

// parseValue reads a cell; ok is false for a figure not published ("", "-", "n/a").
func parseValue(cell string) (v value, ok bool, err error) {
	c := strings.TrimSpace(cell)
	if notPublished[strings.ToLower(c)] {
		return v, false, nil
	}
	if groupingRE.MatchString(c) {
		return v, false, errors.New(strconv.Quote(c) + ": a digit grouping or a decimal comma is ambiguous")
	}
	m := valueRE.FindStringSubmatch(c)
	if m == nil {
		return v, false, errors.New(strconv.Quote(c) + " is not a figure (a number, \"39%\" or \"mean (min m, max M)\")")
	}
	nums := []*float64{&v.mean, &v.min, &v.max}
	for i, s := range []string{m[1], m[3], m[4]} {
		if s == "" {
			continue
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return v, false, errors.New(strconv.Quote(s) + " is not a finite number")
		}
		*nums[i] = f
	}
	v.percent = m[2] != ""
	v.hasRange = m[3] != ""
	return v, true, nil
}

// parseSize reads a size in bytes: "16", "16 bytes", "16 B".
func parseSize(cell string) (int, bool) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(cell))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 || n > opensslspeed.MaxBlockSize {
		return 0, false
	}
	return n, true
}

// cpuRangeFlag starts the flag that carries a published CPU % range.
const cpuRangeFlag = "published-cpu-range: "

// CPURangeFlag is the flag of a figure whose CPU % was published as "mean (min m, max M)": the mean is its
// CPUPct, and the range, which has no column of its own, travels with the point as this flag.
func CPURangeFlag(min, max float64) string {
	return fmt.Sprintf("%smin %s, max %s", cpuRangeFlag, strconv.FormatFloat(min, 'f', -1, 64), strconv.FormatFloat(max, 'f', -1, 64))
}

// CPURange reads the published CPU % range back from a point's flags; ok is false when it has none.
func CPURange(flags []string) (min, max float64, ok bool) {
	for _, f := range flags {
		if rest, found := strings.CutPrefix(f, cpuRangeFlag); found {
			if _, err := fmt.Sscanf(rest, "min %g, max %g", &min, &max); err == nil && min <= max {
				return min, max, true
			}
		}
	}
	return 0, 0, false
}
