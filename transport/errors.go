package transport

import (
	"errors"
	"net"
)

// Sentinel errors of a transport. Callers decide on them with errors.Is: ErrUnreachable, ErrTimeout and
// ErrConnectionLost are worth retrying; ErrAuthFailed, ErrHostKeyMismatch and ErrUnknownHost are not, because
// trying again cannot fix a key or a known_hosts file.
var (
	// ErrAuthFailed: the server refused every identity offered (or none was usable).
	ErrAuthFailed = errors.New("authentication failed")
	// ErrHostKeyMismatch: the board presented a host key different from the one in known_hosts. The SSH
	// transport's concrete error is a *ssh.HostKeyError naming the known_hosts file and line.
	ErrHostKeyMismatch = errors.New("host key mismatch")
	// ErrUnknownHost: the board is not in known_hosts and AcceptNew was not set.
	ErrUnknownHost = errors.New("unknown host")
	// ErrUnreachable: the TCP connection could not be made (refused, no route, no such host).
	ErrUnreachable = errors.New("unreachable")
	// ErrTimeout: the TCP connection or the SSH handshake did not complete within the connect timeout.
	ErrTimeout = errors.New("timeout")
	// ErrConnectionLost: an established connection died (dropped, reset, or keepalives unanswered).
	ErrConnectionLost = errors.New("connection lost")
)

// Retryable reports whether dialing again could succeed. A name that does not resolve stays unresolved.
func Retryable(err error) bool {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, ErrAuthFailed), errors.Is(err, ErrHostKeyMismatch), errors.Is(err, ErrUnknownHost):
		return false
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return false
	}
	return errors.Is(err, ErrUnreachable) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrConnectionLost)
}
