package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// The SSH table of mode ssh, after the OCF port's report: per board and cipher, the upload and download
// throughput with the board's CPU %, and how much of the raw cipher's speed (openssl speed on the same board) SSH
// reaches.

// SSHCell is one direction of one cipher on one board.
type SSHCell struct {
	Value         float64  `json:"value"` // median throughput in the table's unit
	Median        float64  `json:"median"`
	Min           float64  `json:"min"`
	Max           float64  `json:"max"`
	Spread        float64  `json:"spread"`
	N             int      `json:"n"`
	BoardCPU      float64  `json:"board_cpu_pct"`      // median, whole board, 100 = one core
	ControllerCPU float64  `json:"controller_cpu_pct"` // median, the controller process, 100 = one core; -1 unknown
	HostBound     int      `json:"host_bound,omitempty"`
	Failed        int      `json:"failed,omitempty"`
	Errors        []string `json:"errors,omitempty"`
}

// SSHRaw is the raw speed of the openssl algorithm an SSH cipher uses, on the same board: the median of the
// newest run that measured it in that mode, at its largest block size.
type SSHRaw struct {
	Mode      string  `json:"mode"` // cpu, or devcrypto when the board has no cpu point of it
	Algorithm string  `json:"algorithm"`
	BlockSize int     `json:"block_size"`
	RunID     int64   `json:"run"`
	Value     float64 `json:"value"` // in the table's unit
	Median    float64 `json:"median"`
}

// SSHRow is one board × cipher × transfer size.
type SSHRow struct {
	Board      string   `json:"board"`
	Cipher     string   `json:"cipher"`
	Size       int      `json:"size"`
	Negotiated string   `json:"negotiated,omitempty"` // cipher and MAC as read back from the connection
	Server     string   `json:"server,omitempty"`
	ProxyJump  string   `json:"proxy_jump,omitempty"` // jump hosts crossed: the figures are the whole chain's
	Upload     *SSHCell `json:"upload"`
	Download   *SSHCell `json:"download"`
	Raw        *SSHRaw  `json:"raw,omitempty"`
}

// SSHComparison is the SSH table.
type SSHComparison struct {
	Unit     string   `json:"unit"`
	Rows     []SSHRow `json:"rows"`
	Warnings []string `json:"warnings"`
}

// SplitSSH separates mode ssh's points from the others: they have tables of their own.
func SplitSSH(ms []store.Measurement) (others, ssh []store.Measurement) {
	for _, m := range ms {
		if m.Mode == protocol.ModeSSH {
			ssh = append(ssh, m)
		} else {
			others = append(others, m)
		}
	}
	return others, ssh
}

// CompareSSH lays out mode ssh's points (others are ignored) with the raw cipher points of the same boards (any
// runs: the newest run of each board, mode and algorithm is used).
func CompareSSH(ms, raw []store.Measurement, opts CompareOptions) (*SSHComparison, error) {
	unit, err := canonicalUnit(opts.Unit)
	if err != nil {
		return nil, fmt.Errorf("compare ssh: %w", err)
	}
	var pts []store.Measurement
	for _, m := range ms {
		if m.Mode == protocol.ModeSSH && (len(opts.Boards) == 0 || slices.Contains(opts.Boards, m.Board)) &&
			(len(opts.Algorithms) == 0 || slices.Contains(opts.Algorithms, m.Algorithm)) {
			pts = append(pts, m)
		}
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("compare ssh: %w", ErrNoMeasurements)
	}
	c := &SSHComparison{Unit: unit}
	type rowKey struct {
		board, cipher string
		size          int
	}
	rows := map[rowKey]*SSHRow{}
	var keys []rowKey
	samples, warnings := Group(pts)
	c.Warnings = warnings
	for _, m := range pts {
		k := rowKey{m.Board, m.Algorithm, m.BlockSize}
		r := rows[k]
		if r == nil {
			r = &SSHRow{Board: m.Board, Cipher: m.Algorithm, Size: m.BlockSize}
			rows[k] = r
			keys = append(keys, k)
		}
		if !m.Failed && r.Negotiated == "" {
			r.Negotiated = m.Driver
		}
		for _, f := range m.Flags {
			if v, ok := strings.CutPrefix(f, protocol.FlagSSHServer); ok && r.Server == "" {
				r.Server = v
			}
			if v, ok := strings.CutPrefix(f, protocol.FlagProxyJump); ok {
				r.ProxyJump = v
			}
		}
	}
	for _, s := range samples {
		r := rows[rowKey{s.Key.Board, s.Key.Algorithm, s.Key.BlockSize}]
		cell := sshCell(s, pts, unit)
		if s.Key.Op == protocol.OpUpload {
			r.Upload = cell
		} else {
			r.Download = cell
		}
	}
	rank := rankOf(opts.Boards)
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if ra, rb := rank(a.board), rank(b.board); ra != rb || a.board != b.board {
			if ra != rb {
				return ra < rb
			}
			return a.board < b.board
		}
		if ca, cb := cipherRank(a.cipher), cipherRank(b.cipher); ca != cb {
			return ca < cb
		}
		return a.size < b.size
	})
	for _, k := range keys {
		r := rows[k]
		r.Raw = rawSpeed(raw, r.Board, protocol.RawCipherOf(r.Cipher), unit)
		c.Rows = append(c.Rows, *r)
	}
	return c, nil
}

func cipherRank(c string) int {
	if i := slices.Index(protocol.SSHCiphers, c); i >= 0 {
		return i
	}
	return len(protocol.SSHCiphers)
}

// sshCell summarises one direction; the controller's CPU and host-bound come from the points' flags.
func sshCell(s *Sample, pts []store.Measurement, unit string) *SSHCell {
	sum := s.Summary()
	cell := &SSHCell{Value: inUnit(sum.Median, unit), Median: sum.Median, Min: sum.Min, Max: sum.Max,
		Spread: sum.Spread(), N: sum.N, BoardCPU: s.CPU(), ControllerCPU: -1, Failed: s.Failed, Errors: s.Errors}
	var ctl []float64
	for _, m := range pts {
		if m.Board != s.Key.Board || m.Algorithm != s.Key.Algorithm || m.Op != s.Key.Op || m.BlockSize != s.Key.BlockSize || m.Failed {
			continue
		}
		for _, f := range m.Flags {
			if f == protocol.FlagHostBound {
				cell.HostBound++
			}
			if v, ok := strings.CutPrefix(f, protocol.FlagControllerCPU); ok {
				if x, err := strconv.ParseFloat(v, 64); err == nil {
					ctl = append(ctl, x)
				}
			}
		}
	}
	if len(ctl) > 0 {
		sort.Float64s(ctl)
		cell.ControllerCPU = median(ctl)
	}
	return cell
}

// rawSpeed is the board's cpu speed of alg (devcrypto when it has no cpu point): the newest run's median at
// its largest block size; nil when the board has neither.
func rawSpeed(raw []store.Measurement, board, alg, unit string) *SSHRaw {
	if alg == "" {
		return nil
	}
	for _, mode := range []string{protocol.ModeCPU, protocol.ModeDevCrypto} {
		var newest int64
		size := 0
		for _, m := range raw {
			if m.Board == board && m.Mode == mode && m.Algorithm == alg && !m.Failed && m.BytesPerSec > 0 &&
				(m.Op == "" || m.Op == "encrypt") && (m.RunID > newest || m.RunID == newest && m.BlockSize > size) {
				newest, size = m.RunID, m.BlockSize
			}
		}
		if newest == 0 {
			continue
		}
		var vs []float64
		for _, m := range raw {
			if m.Board == board && m.Mode == mode && m.Algorithm == alg && !m.Failed && m.RunID == newest &&
				m.BlockSize == size && (m.Op == "" || m.Op == "encrypt") {
				vs = append(vs, m.BytesPerSec)
			}
		}
		med := Summarize(vs).Median
		return &SSHRaw{Mode: mode, Algorithm: alg, BlockSize: size, RunID: newest, Value: inUnit(med, unit), Median: med}
	}
	return nil
}
