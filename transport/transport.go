package transport

import (
	"context"
	"io"
	"io/fs"
	"strconv"
)

// Command is one program to start on a board. Args are passed as an argument vector: the SSH transport quotes
// each one for the remote shell, so no value is ever spliced into a shell line unquoted.
type Command struct {
	Args   []string
	Env    map[string]string // extra environment
	Stdin  io.Reader
	Stdout io.Writer // must not be the same writer as Stderr
	Stderr io.Writer
}

// Transport runs commands on one board and puts files there. Implementations: fleet.LocalTransport (the host
// itself) and ssh.Transport (package transport/ssh).
type Transport interface {
	// Run starts cmd, waits for it and returns an *ExitError for a non-zero exit. Cancelling ctx stops the
	// remote process (closing its stdin, then signalling or closing the session).
	Run(ctx context.Context, cmd Command) error
	// Put writes size bytes from r to path on the board with mode perm, creating parent directories (0700).
	Put(ctx context.Context, path string, r io.Reader, size int64, perm fs.FileMode) error
	// Close releases the connection.
	Close() error
}

// ExitError is a remote command that ran and exited non-zero.
type ExitError struct {
	Code   int
	Stderr string // tail of stderr when the caller did not capture it
}

func (e *ExitError) Error() string {
	if e.Stderr != "" {
		return "exit status " + strconv.Itoa(e.Code) + ": " + e.Stderr
	}
	return "exit status " + strconv.Itoa(e.Code)
}
