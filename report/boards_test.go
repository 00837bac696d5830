package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/protocol"
)

// boardsFixture: a local board never measured, a board measured and held by a nightly run, a board whose
// holder died (lease expired), and a lease on a board of another controller's inventory.
func boardsFixture() ([]BoardListing, []protocol.Lease) {
	at := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	held := protocol.Lease{Board: "lab1", RunID: 41, Label: "nightly", Host: "ci-3", PID: 4242, Since: at,
		Heartbeat: at.Add(50 * time.Second), Expires: at.Add(110 * time.Second)}
	dead := protocol.Lease{Board: "lab2", RunID: 39, Host: "desk-7", PID: 99, Since: at.Add(-time.Hour),
		Heartbeat: at.Add(-50 * time.Minute), Expires: at.Add(-49 * time.Minute), Expired: true}
	other := protocol.Lease{Board: "rack2-imx8", RunID: 40, Label: "site-b", Host: "ci-9", PID: 7, Since: at,
		Heartbeat: at, Expires: at.Add(time.Minute)}
	boards := []BoardListing{
		{Name: "local", Local: true},
		{Name: "lab1", Host: "root@10.0.0.11", Arch: "armv7", Tags: []string{"ti", "am335x"}, Seen: at.Add(-24 * time.Hour),
			Facts: &protocol.Facts{Machine: "armv7l", Kernel: "6.1.0", OpenSSLVersion: "3.0.15"}, Lease: &held},
		{Name: "lab2", Host: "10.0.0.12", Lease: &dead},
	}
	return boards, []protocol.Lease{held, dead, other}
}

// TestWriteBoardsGolden: the inventory with lease holders, as text and JSON.
func TestWriteBoardsGolden(t *testing.T) {
	boards, leases := boardsFixture()
	for _, f := range []string{FormatText, FormatJSON} {
		var b bytes.Buffer
		if err := WriteBoards(&b, boards, leases, f); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "boards."+map[string]string{FormatText: "txt", FormatJSON: "json"}[f]+".golden", b.Bytes())
	}
}

// TestWriteBoardsNoLeases: with no lease in the database there is no leases table, and JSON lists none.
func TestWriteBoardsNoLeases(t *testing.T) {
	boards, _ := boardsFixture()
	for i := range boards {
		boards[i].Lease = nil
	}
	var b bytes.Buffer
	if err := WriteBoards(&b, boards, nil, FormatText); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("Leases")) || bytes.Contains(b.Bytes(), []byte("run ")) {
		t.Errorf("no leases, but the listing shows some:\n%s", b.String())
	}
	b.Reset()
	if err := WriteBoards(&b, boards, nil, FormatJSON); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"leases": []`)) || !bytes.Contains(b.Bytes(), []byte(`"lease": null`)) {
		t.Errorf("JSON without leases should list none and give each board a null lease:\n%s", b.String())
	}
}
