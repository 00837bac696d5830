package fleet

import (
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// What the agent read of the kernel log, point by point (protocol.KernelTally): the agent matches every line on
// the board before its caps, sends the first lines, the matched ones up to a cap and the first fatal one, and
// counts the rest. The judge adds the counts to the board run's health, and remembers what was not read (a log
// that stopped being readable, lines lost before they were read), which makes a health that would be ok
// unknown: a log the controller did not see whole is never called ok.

// kernelGap is one reason some of the log was not read, with the first point it happened under.
type kernelGap struct {
	why    string // "" for lost lines, counted in lines
	first  string // the point's label, or "the end of the sweep"
	points int    // how many points (and sweep ends) it happened under
	lines  int    // lost lines
}

// maxKernelGaps bounds the distinct reasons kept; more are counted.
const maxKernelGaps = 4

// matchLines returns the lines of ls that match, each with the point measured when it appeared.
func matchLines(m protocol.KernelMatcher, ls []protocol.KernelLine, during string) []protocol.HealthLine {
	var out []protocol.HealthLine
	for _, l := range ls {
		if p, ok := m.Match(l.Text); ok {
			out = append(out, protocol.HealthLine{Text: l.Text, Pattern: p.Name, Fatal: p.Fatal, During: during})
		}
	}
	return out
}

// tallyLocked adds what the agent read for one point (or the sweep's end) to the health, given the sent lines
// and those of them that matched. A fatal line the agent counted and did not send (it keeps the first whatever
// its caps, so only an agent that does not would) fails the board run all the same; tallyLocked then returns
// the text that names it, for the point's flag.
func (k *kernelJudge) tallyLocked(t *protocol.KernelTally, sent int, matched []protocol.HealthLine, during string) string {
	if t == nil { // an agent that predates the tally: what it sent is what it read
		k.health.Read += sent
		return ""
	}
	k.health.Read += t.Read
	if n := t.Matched - len(matched); n > 0 {
		k.health.Dropped += n
		k.health.Health = protocol.HealthProblems
	}
	fatalSent := 0
	for _, l := range matched {
		if l.Fatal {
			fatalSent++
		}
	}
	unkept := ""
	if t.Fatal > 0 && fatalSent == 0 {
		unkept = fmt.Sprintf("%d fatal kernel line(s) (Oops, BUG, panic) during %s, not kept", t.Fatal, during)
		if k.fatal == "" {
			k.fatal = unkept
		}
		k.health.Health = protocol.HealthProblems
	}
	if t.Lost > 0 {
		k.health.Lost += t.Lost
		k.addGapLocked("", during, t.Lost)
	}
	if t.Unreadable != "" {
		k.gapLocked(t.Unreadable, during)
	}
	return unkept
}

// gapLocked records that the log could not be read during a point, and why.
func (k *kernelJudge) gapLocked(why, during string) {
	k.addGapLocked(why, during, 0)
}

func (k *kernelJudge) addGapLocked(why, during string, lines int) {
	for i := range k.gaps {
		if k.gaps[i].why == why {
			k.gaps[i].points++
			k.gaps[i].lines += lines
			return
		}
	}
	if len(k.gaps) == maxKernelGaps {
		k.otherGaps++
		return
	}
	k.gaps = append(k.gaps, kernelGap{why: why, first: during, points: 1, lines: lines})
}

// gapReasonLocked says what of the log was not read; "" when all of it was.
func (k *kernelJudge) gapReasonLocked() string {
	var parts []string
	for _, g := range k.gaps {
		more := ""
		switch {
		case g.points == 2:
			more = " and once more"
		case g.points > 2:
			more = fmt.Sprintf(" and %d more times", g.points-1)
		}
		if g.why == "" {
			parts = append(parts, fmt.Sprintf("%d kernel line(s) lost before they were read, so never matched (during %s%s)",
				g.lines, g.first, more))
			continue
		}
		parts = append(parts, fmt.Sprintf("the kernel log was not read during %s%s: %s", g.first, more, g.why))
	}
	if k.otherGaps > 0 {
		parts = append(parts, fmt.Sprintf("and %d more time(s) for other reasons", k.otherGaps))
	}
	return strings.Join(parts, "; ")
}
