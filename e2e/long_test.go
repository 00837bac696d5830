package e2e

import "testing"

// The long cases: the ten that took 373 s of the package's 621 s on 2 cores shared with other builds
// (`go test -count=1 -v -run . ./e2e/`, as root with sshd and PostgreSQL): TestPostgresStoppedMidRun 77 s,
// TestShellPathWrongOutput 58 s, TestVerifyLocalWrongOutput 45 s, TestShellPathParity 45 s,
// TestSSHModeLinkCutMidTransfer 40 s, TestLeaseRace 39 s, TestSSHModeEveryDefaultCipher 19 s,
// TestLeaseExpiresAfterKill 19 s, TestLinkCutDuringPush 16 s and TestBoardRestartedBeforeSweep 15 s. With them the
// package timed out at go test's default 10 minutes beside other work; test.sh builds it with -tags long, so CI
// runs every one.
//
//	go test -tags long ./e2e           # everything, as test.sh does
//	go test -tags long -run TestLeaseRace ./e2e

// longCase skips t unless the package was built with -tags long.
func longCase(t *testing.T) {
	t.Helper()
	if !longCases {
		t.Skip("a long case: run it with -tags long (test.sh does)")
	}
}
