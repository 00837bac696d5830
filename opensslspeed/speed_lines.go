package opensslspeed

import (
	"regexp"
	"strings"
)

// speedLine is one logical line of a text: quoting and indentation removed, hard wraps joined.
type speedLine struct {
	text string
	num  int // 1-based line of the text where it starts
}

// speedMaxJoin bounds how many physical lines one wrapped record may span.
const speedMaxJoin = 4

// speedSplitLines cleans each line: email quoting ("> "), indentation, tabs and carriage returns go.
func speedSplitLines(text string) []speedLine {
	raw := strings.Split(text, "\n")
	out := make([]speedLine, 0, len(raw))
	for i, l := range raw {
		l = strings.TrimRight(l, "\r")
		t := strings.TrimLeft(l, " \t")
		for strings.HasPrefix(t, ">") {
			t = strings.TrimLeft(t[1:], " \t")
		}
		t = strings.TrimSpace(strings.ReplaceAll(t, "\t", " "))
		out = append(out, speedLine{text: t, num: i + 1})
	}
	return out
}

var (
	speedDoneRE      = regexp.MustCompile(`\sin\s+-?\d+(?:\.\d+)?s\s*$`)
	speedSizeOnlyRE  = regexp.MustCompile(`^(?:\d+|bytes)(?:\s+(?:\d+|bytes))*$`)
	speedNumOnlyRE   = regexp.MustCompile(`^\d+\.\d+k?(?:\s+\d+\.\d+k?)*$`)
	speedTableHeadRE = regexp.MustCompile(`^type\s+\d+\s+bytes`)
)

// speedJoinWrapped undoes hard wraps that authors (and mail clients) put into pasted output: a "Doing ..."
// line whose result went to the next line(s), a table header whose last sizes wrapped, and a table row whose
// last values wrapped.
func speedJoinWrapped(in []speedLine) []speedLine {
	out := make([]speedLine, 0, len(in))
	headerSizes := 0
	for i := 0; i < len(in); i++ {
		l := in[i]
		switch {
		case strings.HasPrefix(l.text, "Doing ") && !speedDoneRE.MatchString(l.text):
			joined, used := l.text, 0
			for j := i + 1; j < len(in) && j <= i+speedMaxJoin; j++ {
				next := in[j].text
				if next == "" || strings.HasPrefix(next, "Doing ") || strings.HasPrefix(next, "+") {
					break
				}
				joined += " " + next
				if speedDoneRE.MatchString(joined) {
					used = j - i
					break
				}
			}
			if used > 0 {
				l.text = joined
				i += used
			}
		case speedTableHeadRE.MatchString(l.text):
			if i+1 < len(in) && strings.Contains(in[i+1].text, "bytes") && speedSizeOnlyRE.MatchString(in[i+1].text) {
				l.text += " " + in[i+1].text
				i++
			}
			l.text = strings.Join(strings.Fields(l.text), " ")
			headerSizes = len(speedHeaderSizes(l.text))
		case headerSizes > 0 && i+1 < len(in) && speedNumOnlyRE.MatchString(in[i+1].text):
			_, vals, ok := speedSplitRow(l.text)
			extra := len(strings.Fields(in[i+1].text))
			if ok && len(vals) < headerSizes && len(vals)+extra == headerSizes {
				l.text += " " + in[i+1].text
				i++
			}
		}
		out = append(out, l)
	}
	return out
}
