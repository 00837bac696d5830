package inventory

import (
	"fmt"
	"strconv"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// A board's own kernel-log patterns ([boards.NAME.kernel_log] patterns = [...]) are regular expressions in the
// subset of Go's syntax that protocol.Pattern reads (the agent matches them on the board, where package regexp
// does not fit its size budget: no backreferences, named groups or Unicode classes), matched against each kernel line that appears during its sweep, beside fleet's defaults (Oops, BUG, WARNING,
// failed self-tests, known crypto driver errors). reconnect_wait is how long fleet waits for a board that went
// away mid-sweep to answer again; 0 or absent: not at all, the board fails with what it measured.

// kernelLogDoc is [boards.NAME.kernel_log].
type kernelLogDoc struct {
	Patterns *[]string `toml:"patterns"`
}

var kernelLogKeys = []string{"patterns"}

// MaxReconnectWait bounds reconnect_wait and --reconnect-wait: a board that takes longer to boot is lost.
const MaxReconnectWait = time.Hour

// maxKernelPatterns and maxPatternBytes bound a board's patterns: each is compiled and run on every line.
const (
	maxKernelPatterns = 32
	maxPatternBytes   = 512
)

// CheckReconnectWait refuses a wait that is negative or longer than MaxReconnectWait.
func CheckReconnectWait(d time.Duration) error {
	if d < 0 || d > MaxReconnectWait {
		return fmt.Errorf("reconnect wait %v is out of range (expected 0s, which does not wait, to %v)", d, MaxReconnectWait)
	}
	return nil
}

// kernelPatterns checks [boards.NAME.kernel_log]: each pattern must compile, and be no empty match-everything.
func (b *builder) kernelPatterns(base []string, ctx string, d *kernelLogDoc) []string {
	if d == nil || d.Patterns == nil {
		return nil
	}
	if n := len(*d.Patterns); n > maxKernelPatterns {
		b.ps.add(b.ps.pos.valueAt(appendPath(base, "kernel_log", "patterns")...), ctx,
			"kernel_log.patterns: %d patterns, expected at most %d", n, maxKernelPatterns)
		return nil
	}
	var out []string
	for i, p := range *d.Patterns {
		off := b.ps.pos.valueAt(appendPath(base, "kernel_log", "patterns", "["+strconv.Itoa(i)+"]")...)
		el := fmt.Sprintf("kernel_log.patterns[%d]", i)
		switch re, err := protocol.CompilePattern(p); {
		case len(p) > maxPatternBytes:
			b.ps.add(off, ctx, "%s: pattern is %d bytes, expected at most %d", el, len(p), maxPatternBytes)
		case err != nil:
			b.ps.add(off, ctx, "%s: %q is not a regular expression: %v", el, p, err)
		case re.MatchString(""):
			b.ps.add(off, ctx, "%s: %q matches an empty line, so every kernel line (expected a pattern such as \"sysrq: HELP\")", el, p)
		default:
			out = append(out, p)
		}
	}
	return out
}

// reconnectWait checks a reconnect_wait value ("5m").
func (b *builder) reconnectWait(base []string, ctx string, s *string) *time.Duration {
	if s == nil {
		return nil
	}
	d, err := time.ParseDuration(*s)
	if err == nil {
		err = CheckReconnectWait(d)
	} else {
		err = fmt.Errorf("reconnect wait %q is not a duration (expected such as \"3m\" or \"90s\")", *s)
	}
	if err != nil {
		b.ps.add(b.ps.pos.valueAt(appendPath(base, "reconnect_wait")...), ctx, "reconnect_wait: %v", err)
		return nil
	}
	return &d
}

// ReconnectWaitFor is how long to wait for board to come back under profile: the board's own over the profile's;
// 0 when neither says.
func ReconnectWaitFor(board Board, profile Profile) time.Duration {
	switch {
	case board.ReconnectWait != nil:
		return *board.ReconnectWait
	case profile.ReconnectWait != nil:
		return *profile.ReconnectWait
	}
	return 0
}
