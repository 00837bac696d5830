package opensslspeed

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// speedLine is one logical line of a text: quoting and indentation removed, hard wraps joined.
type speedLine struct {
	text string
	num  int    // 1-based line of the text where it starts
	note string // why the line was not read (too long), else ""
}

// speedMaxJoin bounds how many physical lines one wrapped record may span.
const speedMaxJoin = 4

// MaxLineBytes bounds one line of a capture. `openssl speed` never prints a line of more than a few hundred
// bytes; a longer line in a pasted log (a base64 blob, a minified file) is skipped with a warning, so that memory
// stays bounded whatever the input.
const MaxLineBytes = 64 << 10

// speedLines reads a text (through DecodeText: UTF-16, and lone '\r' line ends, read as UTF-8 with '\n') as
// logical lines, one at a time: each physical line cleaned of email quoting ("> "), indentation, tabs and
// carriage returns, and hard wraps joined (see next). It holds at most speedMaxJoin lines ahead, so a text of
// any size is read in bounded memory.
type speedLines struct {
	r           *bufio.Reader
	num         int         // physical lines read
	ahead       []speedLine // cleaned physical lines read but not yet returned
	eof         bool
	err         error // the reader's error, other than io.EOF
	headerSizes int   // sizes in the last table header, to join a row whose values wrapped
}

func newSpeedLines(r io.Reader) *speedLines {
	return &speedLines{r: bufio.NewReaderSize(DecodeText(r), 32<<10)}
}

// readPhysical reads one physical line, or returns false at the end of the text.
func (s *speedLines) readPhysical() (speedLine, bool) {
	if s.eof {
		return speedLine{}, false
	}
	var buf []byte
	tooLong := false
	for {
		chunk, err := s.r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > MaxLineBytes+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
			if len(chunk) == 0 && len(buf) == 0 && !tooLong {
				return speedLine{}, false
			}
		}
		break
	}
	s.num++
	if tooLong {
		return speedLine{num: s.num, note: "line " + strconv.Itoa(s.num) + ": longer than " +
			strconv.Itoa(MaxLineBytes>>10) + " KiB, not openssl speed output: skipped"}, true
	}
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	return speedLine{text: speedCleanLine(string(buf)), num: s.num}, true
}

// speedCleanLine removes email quoting ("> "), indentation, tabs and carriage returns.
func speedCleanLine(l string) string {
	l = strings.TrimRight(l, "\r")
	t := strings.TrimLeft(l, " \t")
	for strings.HasPrefix(t, ">") {
		t = strings.TrimLeft(t[1:], " \t")
	}
	return strings.TrimSpace(strings.ReplaceAll(t, "\t", " "))
}

// peek returns the i-th line after the current one (0 is the current), reading ahead as needed.
func (s *speedLines) peek(i int) (speedLine, bool) {
	for len(s.ahead) <= i {
		l, ok := s.readPhysical()
		if !ok {
			return speedLine{}, false
		}
		s.ahead = append(s.ahead, l)
	}
	return s.ahead[i], true
}

// drop consumes n lines.
func (s *speedLines) drop(n int) {
	s.ahead = append(s.ahead[:0], s.ahead[n:]...)
}

var (
	speedDoneRE      = protocol.MustPattern(`\sin\s+-?\d+(?:\.\d+)?s\s*$`)
	speedSizeOnlyRE  = protocol.MustPattern(`^(?:\d+|bytes)(?:\s+(?:\d+|bytes))*$`)
	speedNumOnlyRE   = protocol.MustPattern(`^\d+\.\d+k?(?:\s+\d+\.\d+k?)*$`)
	speedTableHeadRE = protocol.MustPattern(`^type\s+\d+\s+bytes`)
)

// next returns the next logical line. It undoes hard wraps that authors (and mail clients) put into pasted
// output: a "Doing ..." line whose result went to the next line(s), a table header whose last sizes wrapped,
// and a table row whose last values wrapped.
func (s *speedLines) next() (speedLine, bool) {
	l, ok := s.peek(0)
	if !ok {
		return l, false
	}
	used := 0
	switch {
	case l.note != "":
	case strings.HasPrefix(l.text, "Doing ") && !speedDoneRE.MatchString(l.text):
		joined := l.text
		for j := 1; j <= speedMaxJoin; j++ {
			nl, ok := s.peek(j)
			if !ok {
				break
			}
			next := nl.text
			if nl.note != "" || next == "" || strings.HasPrefix(next, "Doing ") || strings.HasPrefix(next, "+") {
				break
			}
			joined += " " + next
			if speedDoneRE.MatchString(joined) {
				used = j
				break
			}
		}
		if used > 0 {
			l.text = joined
		}
	case speedTableHeadRE.MatchString(l.text):
		if nl, ok := s.peek(1); ok && nl.note == "" && strings.Contains(nl.text, "bytes") && speedSizeOnlyRE.MatchString(nl.text) {
			l.text += " " + nl.text
			used = 1
		}
		l.text = strings.Join(strings.Fields(l.text), " ")
		s.headerSizes = len(speedHeaderSizes(l.text))
	case s.headerSizes > 0:
		if nl, ok := s.peek(1); ok && nl.note == "" && speedNumOnlyRE.MatchString(nl.text) {
			_, vals, ok := speedSplitRow(l.text)
			extra := len(strings.Fields(nl.text))
			if ok && len(vals) < s.headerSizes && len(vals)+extra == s.headerSizes {
				l.text += " " + nl.text
				used = 1
			}
		}
	}
	s.drop(used + 1)
	return l, true
}
