package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// verifyPathTimeout is the one deadline of a path's whole verification (one mode and algorithm: every input, its
// one-piece requests and the concurrency check): far above the 0.2 – 1.4 s a path took on the boards bench/README
// times, so that only a hung driver reaches it. One deadline for the path, not one per input: a driver
// that hangs hangs on every input, and 60 s per input made one path 6 minutes; past the deadline the path's later
// inputs are skipped with the reason, and the board's other paths are verified as usual. The plan's
// VerifyTimeoutS sets another (the tests' seam).
const verifyPathTimeout = 60 * time.Second

// verifyChildTimeout bounds one openssl run outside a path's verification (the devcrypto engine's help).
const verifyChildTimeout = verifyPathTimeout

// pathDeadline is the deadline of one path's verification. A nil one bounds each run by verifyPathTimeout on its
// own (a verifier made outside a sweep, in tests).
type pathDeadline struct {
	mode, alg string
	limit     time.Duration
	end       time.Time
}

// pathDeadline starts the deadline of mode and alg's verification now.
func (s *sweepState) pathDeadline(mode, alg string) *pathDeadline {
	limit := verifyPathTimeout
	if v := s.plan.VerifyTimeoutS; v > 0 && v <= 3600 {
		limit = time.Duration(v * float64(time.Second))
	}
	return &pathDeadline{mode: mode, alg: alg, limit: limit, end: time.Now().Add(limit)}
}

// left is what is left of the deadline, at least a millisecond (a run started at the deadline still gets a
// bound, and ends at once).
func (d *pathDeadline) left() time.Duration {
	if d == nil {
		return verifyPathTimeout
	}
	return max(time.Until(d.end), time.Millisecond)
}

func (d *pathDeadline) expired() bool { return d != nil && !time.Now().Before(d.end) }

// errVerifyTimeout is a run of a path's verification that the path's deadline ended (hung) or never started
// (skipped). The controller judges a path with such a case as it judges any input the path failed: wrong, as a
// hung concurrency check is; a hung `openssl speed` fails the board too.
type errVerifyTimeout struct {
	d       *pathDeadline
	skipped bool
}

func (e *errVerifyTimeout) Error() string {
	s := fmt.Sprintf("verification of %s %s did not answer within %s s", e.d.mode, e.d.alg,
		strconv.FormatFloat(e.d.limit.Seconds(), 'g', -1, 64))
	if e.skipped {
		return "skipped: " + s
	}
	return s
}

func (d *pathDeadline) hung() error    { return &errVerifyTimeout{d: d} }
func (d *pathDeadline) skipped() error { return &errVerifyTimeout{d: d, skipped: true} }

// isVerifyTimeout reports whether err is a run the path's deadline ended or skipped.
func isVerifyTimeout(err error) bool {
	var e *errVerifyTimeout
	return errors.As(err, &e)
}

// within runs f within what is left of d, for the requests the agent makes itself (AF_ALG, /dev/crypto): a
// request stuck in a driver cannot be interrupted, so at the deadline it is left behind (the agent's exit ends
// it) and within returns d's error. A path already past its deadline runs nothing.
func within[T any](d *pathDeadline, f func() T) (T, error) {
	var zero T
	if d == nil {
		return f(), nil
	}
	if d.expired() {
		return zero, d.skipped()
	}
	done := make(chan T, 1)
	go func() { done <- f() }()
	t := time.NewTimer(d.left())
	defer t.Stop()
	select {
	case v := <-done:
		return v, nil
	case <-t.C:
		return zero, d.hung()
	}
}

// noSpace reports whether a failed write or run ran out of disk: ENOSPC, or "No space left on device" on the
// stderr of the board's tool (OpenSSL 3 prints the errno of a failed write; the shell path has only the text).
func noSpace(err error, stderr string) bool {
	return errors.Is(err, syscall.ENOSPC) || strings.Contains(strings.ToLower(stderr), "no space left on device")
}

// writeFailure says why the input at path could not be written: the file, and the disk being full when it is.
func writeFailure(path string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		err = pe.Err // the file is named once
	}
	return fmt.Sprintf("writing the input to %s: %v", path, err)
}
