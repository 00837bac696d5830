package fleet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/protocol"
)

// ErrUnknownAlgorithm is a board refused before measuring because its openssl does not have an algorithm the
// run asked for: a usage error (a misspelt --algorithms), not a failed board. The concrete error is an
// *UnknownAlgorithmsError; the board's part of the run is to be dropped, not kept as failed.
var ErrUnknownAlgorithm = errors.New("unknown algorithm")

// UnknownAlgorithmsError names the algorithms a board's openssl lacks, with the name it has nearest to each.
type UnknownAlgorithmsError struct {
	Board   string
	OpenSSL string // the version, e.g. "OpenSSL 3.0.19"
	Unknown []protocol.UnknownAlgorithm
}

func (e *UnknownAlgorithmsError) Error() string {
	var parts []string
	for _, u := range e.Unknown {
		s := fmt.Sprintf("%s: not an algorithm of board %s's %s", u.Name, e.Board, e.OpenSSL)
		if u.Suggestion != "" {
			s += "; did you mean " + u.Suggestion + "?"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// Is makes errors.Is(err, ErrUnknownAlgorithm) true.
func (e *UnknownAlgorithmsError) Is(target error) bool { return target == ErrUnknownAlgorithm }

// unknownAlgorithms is the refusal of a board whose probe found algorithms of the plan its openssl lacks.
func unknownAlgorithms(board string, f *protocol.Facts) error {
	if len(f.UnknownAlgorithms) == 0 {
		return nil
	}
	v := "OpenSSL"
	if f.OpenSSLVersion != "" {
		v += " " + f.OpenSSLVersion
	}
	return &UnknownAlgorithmsError{Board: board, OpenSSL: v, Unknown: f.UnknownAlgorithms}
}

// algorithmsArgs are the probe's flags that have the agent check plan's algorithm names.
func algorithmsArgs(plan protocol.Plan) []string {
	if algs := agent.CheckedAlgorithms(plan); len(algs) > 0 {
		return []string{"--algorithms", strings.Join(algs, ",")}
	}
	return nil
}
