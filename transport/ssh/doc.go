// Package ssh is the SSH transport: a transport.Transport to a board over one SSH connection, possibly through
// ProxyJump hosts. Dial (transport.go) reaches a board as inventory.Board describes it: dialing through
// ProxyJump chains (dial.go, config.go: ~/.ssh/config's host, user, port, identities and jumps), authentication
// (auth.go: identity files and ssh-agent), host keys checked against known_hosts, accept-new only when asked
// (knownhosts.go), retries with backoff of what may succeed later (retry.go, on transport.Retryable), keepalives
// that tell a dead link from a busy one (keepalive.go), sessions (run.go) and uploads (put.go).
//
// Mode ssh (fleet's mode_ssh*.go) measures the board's SSH server itself: DialCipher (cipher.go) connects again
// exactly as the transport did but offering one cipher, and its CipherConn gives mode ssh only what a timed
// transfer needs: the negotiated algorithms, the server's version, the jump hosts, and sessions that a
// cancelled context closes.
//
// Errors are transport's sentinels (errors.Is); a changed host key is a *HostKeyError (errors.go), a cipher the
// server does not offer a *CipherRefusedError.
package ssh
