package store

import (
	"context"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestRawCipherPoints: the raw cipher points of mode ssh's table are the cpu and devcrypto points of the openssl
// algorithm behind each ssh cipher of each board, from any run; other algorithms, modes and boards are not read.
func TestRawCipherPoints(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for _, board := range []string{"am64x", "imx6q"} {
		w, err := db.BeginRun(ctx, RunInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.BoardStarted(ctx, board); err != nil {
			t.Fatal(err)
		}
		for _, p := range []protocol.Point{pt("cpu", "aes-128-ctr", 16384, 0, 500e6), pt("devcrypto", "aes-128-ctr", 16384, 0, 300e6),
			pt("soft", "aes-128-ctr", 16384, 0, 100e6), pt("cpu", "aes-128-cbc", 16384, 0, 400e6)} {
			if err := w.Point(ctx, board, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(ctx, protocol.StatusOK); err != nil {
			t.Fatal(err)
		}
	}
	m := func(mode, alg string) Measurement {
		return Measurement{Board: "am64x", Point: protocol.Point{Mode: mode, Algorithm: alg}}
	}
	ssh := []Measurement{m(protocol.ModeSSH, "aes128-ctr"), m(protocol.ModeSSH, "aes128-ctr"), m("cpu", "aes-128-cbc")}
	got, err := db.RawCipherPoints(ctx, ssh)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, m := range got {
		seen = append(seen, m.Board+" "+m.Mode+" "+m.Algorithm)
	}
	if len(seen) != 2 || seen[0] != "am64x cpu aes-128-ctr" || seen[1] != "am64x devcrypto aes-128-ctr" {
		t.Errorf("RawCipherPoints = %v, want am64x's cpu and devcrypto aes-128-ctr", seen)
	}
	if got, err := db.RawCipherPoints(ctx, ssh[2:]); err != nil || got != nil {
		t.Errorf("RawCipherPoints without ssh points = %v, %v; want nil", got, err)
	}
}
