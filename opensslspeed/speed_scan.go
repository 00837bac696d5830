package opensslspeed

import (
	"io"
)

// Scanner reads `openssl speed` output from a reader and returns its runs one at a time, as each ends (when the
// next one starts, or at the end of the text). It holds only the run being read and a few lines, so a capture
// of any size is read in bounded memory: a line longer than MaxLineBytes is skipped with a warning, a run with
// more than speedMaxSlots measurements is a Problem.
//
//	s := opensslspeed.NewScanner(f, opensslspeed.Hint{})
//	for s.Scan() {
//		use(s.Run())
//	}
//	if err := s.Err(); err != nil { ... }
type Scanner struct {
	p     *speedParser
	lines *speedLines
	ready []Run
	run   Run
	done  bool
	err   error
}

// NewScanner reads r; hint applies to the runs whose text shows no command line (see Parse).
func NewScanner(r io.Reader, hint Hint) *Scanner {
	return &Scanner{p: &speedParser{hint: hint}, lines: newSpeedLines(r)}
}

// Scan advances to the next run, which Run then returns. It returns false at the end of the text or on a read
// error (see Err).
func (s *Scanner) Scan() bool {
	for len(s.ready) == 0 && !s.done {
		l, ok := s.lines.next()
		if !ok {
			s.done, s.err = true, s.lines.err
			if n := len(s.p.runs); n > 0 {
				s.p.settle(s.p.runs[n-1])
			}
			s.emit(len(s.p.runs))
			break
		}
		s.p.line(l)
		// only the last run still changes: the ones before it are complete
		s.emit(len(s.p.runs) - 1)
	}
	if len(s.ready) == 0 {
		return false
	}
	s.run, s.ready = s.ready[0], s.ready[1:]
	return true
}

// emit finishes the first n runs being read.
func (s *Scanner) emit(n int) {
	if n <= 0 {
		return
	}
	for _, b := range s.p.runs[:n] {
		if b.evidence || len(b.slots) > 0 || len(b.problems) > 0 {
			s.ready = append(s.ready, b.finish(s.p.hint))
		}
	}
	rest := copy(s.p.runs, s.p.runs[n:])
	clear(s.p.runs[rest:])
	s.p.runs = s.p.runs[:rest]
}

// Run is the run Scan found.
func (s *Scanner) Run() Run { return s.run }

// Err is the error that stopped reading, other than the end of the text.
func (s *Scanner) Err() error { return s.err }

// Line is the number of lines read so far.
func (s *Scanner) Line() int { return s.lines.num }
