package fleet

import (
	"errors"
	"fmt"
	"net"
)

// Sentinel errors of the SSH transport. Callers decide on them with errors.Is: ErrUnreachable, ErrTimeout and
// ErrConnectionLost are worth retrying; ErrAuthFailed, ErrHostKeyMismatch and ErrUnknownHost are not, because
// trying again cannot fix a key or a known_hosts file.
var (
	// ErrAuthFailed: the server refused every identity offered (or none was usable).
	ErrAuthFailed = errors.New("authentication failed")
	// ErrHostKeyMismatch: the board presented a host key different from the one in known_hosts. The concrete
	// error is a *HostKeyError naming the known_hosts file and line.
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

// HostKeyError is a host key that differs from the one recorded in known_hosts. It matches ErrHostKeyMismatch
// with errors.Is.
type HostKeyError struct {
	Host    string // host as looked up in known_hosts, e.g. "[192.0.2.64]:2222"
	File    string // known_hosts file holding the recorded key
	Line    int    // line of that key in File
	Want    string // the recorded key: type and SHA256 fingerprint
	Got     string // what the host presented: type and SHA256 fingerprint, or the key types it offers
	Revoked bool   // the presented key is marked @revoked at File:Line
}

func (e *HostKeyError) Error() string {
	if e.Revoked {
		return fmt.Sprintf("host key for %s is revoked (%s:%d): refusing to connect", e.Host, e.File, e.Line)
	}
	return fmt.Sprintf("host key for %s changed: got %s, but %s:%d has %s; "+
		"if the board was reinstalled, remove that line (ssh-keygen -R) and connect again",
		e.Host, e.Got, e.File, e.Line, e.Want)
}

// Is makes errors.Is(err, ErrHostKeyMismatch) true.
func (e *HostKeyError) Is(target error) bool { return target == ErrHostKeyMismatch }

// retryable reports whether dialing again could succeed. A name that does not resolve stays unresolved.
func retryable(err error) bool {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, ErrAuthFailed), errors.Is(err, ErrHostKeyMismatch), errors.Is(err, ErrUnknownHost):
		return false
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return false
	}
	return errors.Is(err, ErrUnreachable) || errors.Is(err, ErrTimeout) || errors.Is(err, ErrConnectionLost)
}
