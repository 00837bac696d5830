package fleet

import (
	"github.com/fleetlab/fleet/transport"
)

// The controller reaches boards through package transport (the interface, its Command and sentinel errors) and
// its implementations: LocalTransport here, package transport/ssh for the others. The aliases keep the names
// the controller's files and callers have always used (fleet.Transport in RunOptions.Dial), so that the move
// of the SSH transport into its own package changed none of them.
type (
	// Transport is transport.Transport: what a board run measures through.
	Transport = transport.Transport
	// Command is transport.Command: one program to start on a board.
	Command = transport.Command
	// ExitError is transport.ExitError: a command that ran and exited non-zero.
	ExitError = transport.ExitError
)

// shellQuote is transport.Quote, under the name the shell path's scripts and mode ssh use.
func shellQuote(s string) string { return transport.Quote(s) }

// tailWriter is transport.TailWriter: the tail of a session's stderr for its error.
type tailWriter = transport.TailWriter
