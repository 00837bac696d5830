package store

import (
	"context"
	"slices"

	"github.com/fleetlab/fleet/protocol"
)

// RawCipherPoints reads what mode ssh's table sets its points against: for each board of the ssh points in ms,
// the cpu and devcrypto points of the openssl algorithms its SSH ciphers use (aes128-ctr ↔ aes-128-ctr), from
// any run (the table takes each series' newest). Points of other modes in ms are ignored; none: nil.
func (db *DB) RawCipherPoints(ctx context.Context, ms []Measurement) ([]Measurement, error) {
	want := map[string][]string{}
	var boards []string
	for _, m := range ms {
		raw := protocol.RawCipherOf(m.Algorithm)
		if m.Mode != protocol.ModeSSH || raw == "" || slices.Contains(want[m.Board], raw) {
			continue
		}
		if want[m.Board] == nil {
			boards = append(boards, m.Board)
		}
		want[m.Board] = append(want[m.Board], raw)
	}
	var out []Measurement
	for _, board := range boards {
		for _, alg := range want[board] {
			for _, mode := range []string{protocol.ModeCPU, protocol.ModeDevCrypto} {
				pts, err := db.Measurements(ctx, Filter{Board: board, Mode: mode, Algorithm: alg})
				if err != nil {
					return nil, err
				}
				out = append(out, pts...)
			}
		}
	}
	return out, nil
}
