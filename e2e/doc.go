// Package e2e holds the end-to-end and fault tests of fleet: they build cmd/fleet, cmd/fleet-agent and a hostile
// fake agent (testdata/hostileagent) once, then drive the fleet binary as a user would — subprocesses with real
// arguments, exit codes, stdout and stderr, a real SQLite file (checked with store.Open and PRAGMA
// integrity_check) and real OpenSSH sshd boards in network namespaces (internal/sshlab).
//
//	go test ./e2e                      # all but the long cases (long_test.go), within go test's 10 minutes
//	go test -tags long ./e2e           # everything, as test.sh runs it
//	go test ./e2e -run TestLinkCut -v  # one case
//	go test -short ./...               # skips this package
//
// As root (CI) everything runs. Without root the sshd boards fall back to loopback ports and the tests that mount
// a tmpfs (database on a full or read-only disk, disk full on the board) skip, naming what they need; without
// sshd or openssl the tests that need them skip too.
//
// The package has no non-test code.
package e2e
