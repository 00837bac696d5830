// Package transport is how the controller reaches a board, whatever carries it: Transport runs a Command on the
// board and puts files there, ExitError is a command that ran and exited non-zero, and the sentinel errors
// (errors.go) say what went wrong in words a caller decides on with errors.Is, Retryable among them: whether
// dialing again could succeed. Quote makes a word of a POSIX shell line, for every line a board's shell reads.
//
// The implementations live elsewhere: package transport/ssh reaches boards over SSH, and fleet's LocalTransport
// is the host itself (the board "local"). This package imports neither, so that a transport depends on the
// interface and the interface on nothing.
package transport
