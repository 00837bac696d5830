package ssh

import (
	"fmt"

	"github.com/fleetlab/fleet/transport"
)

// HostKeyError is a host key that differs from the one recorded in known_hosts. It matches
// transport.ErrHostKeyMismatch with errors.Is.
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

// Is makes errors.Is(err, transport.ErrHostKeyMismatch) true.
func (e *HostKeyError) Is(target error) bool { return target == transport.ErrHostKeyMismatch }
