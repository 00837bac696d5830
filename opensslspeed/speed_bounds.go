package opensslspeed

import (
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Bounds on what one measurement can be. A number outside them, or one that is not a finite number at all
// ("1e400", "nan", a negative count or time), gives no point: it is a Problem of its run, which is then Failed,
// so that an absurd figure is never stored, and never dropped without a word either. They are far above any
// machine `openssl speed` runs on, so a real capture never meets them:
//
//   - block size: 1 B to MaxBlockSize (1 GiB; openssl's own sizes end at 16 KiB, -bytes takes an int);
//   - count: 0 to MaxCount (1e15) operations in one measurement (a million seconds at one per nanosecond);
//   - seconds: 0 to MaxSeconds (1e6 s, eleven days per measurement);
//   - rate: up to MaxBytesPerSec (1e13 B/s, 10 TB/s, above the memory bandwidth of any machine, -multi included)
//     and MaxOpsPerSec (1e10 operations per second);
//   - -multi: up to MaxThreads (1024) processes;
//   - one run: up to speedMaxSlots (1024) measurements; all of openssl speed's algorithms are about 500.
const (
	MaxBlockSize   = 1 << 30
	MaxCount       = 1e15
	MaxSeconds     = 1e6
	MaxBytesPerSec = 1e13
	MaxOpsPerSec   = 1e10
	MaxThreads     = 1024
	speedMaxSlots  = 1024
	speedMaxProbs  = 32 // problems kept per run; the run is refused at the first anyway
)

// problem records a refused value: the run gives no point for it and is Failed.
func (b *speedRunBuilder) problem(line int, text string) { b.problemErr(line, text, nil) }

func (b *speedRunBuilder) problemErr(line int, text string, err error) {
	b.fail("refused: line " + strconv.Itoa(line) + ": " + text)
	if len(b.problems) < speedMaxProbs {
		b.problems = append(b.problems, Problem{Line: line, Text: text, Err: err})
	}
}

// speedBadName says what is wrong with an algorithm or curve name taken from the output, "" when nothing:
// control characters (a NUL, an escape sequence) would make a separate series and reach a terminal.
func speedBadName(name string) string {
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return "name " + strconv.Quote(name) + " has control characters or bytes that are not UTF-8: refused"
		}
	}
	return ""
}

// speedNumber reads a count, a time or a rate as openssl printed it and checks it against max: the problem
// text, "" when the number is fine. what names it in the problem ("count", "seconds", ...).
func speedNumber(s, what string, max float64) (float64, string) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !math.IsInf(v, 0):
		return 0, what + " " + strconv.Quote(s) + " is not a number: refused"
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, what + " " + s + " is not a finite number: refused"
	}
	return v, speedCheck(v, what, max)
}

// speedCheck checks a number against 0..max.
func speedCheck(v float64, what string, max float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return what + " " + speedG(v) + " is not a finite number: refused"
	case v < 0:
		return what + " " + speedG(v) + " is negative: refused (accepted 0 to " + speedG(max) + ")"
	case v > max:
		return what + " " + speedG(v) + " is out of range: refused (accepted 0 to " + speedG(max) + ")"
	}
	return ""
}

// speedCheckSize checks a block size.
func speedCheckSize(n int) string {
	if n < 1 || n > MaxBlockSize {
		return "block size " + strconv.Itoa(n) + " B is out of range: refused (accepted 1 to " +
			strconv.Itoa(MaxBlockSize) + " B)"
	}
	return ""
}

func speedG(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
