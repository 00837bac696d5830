package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// BoardListing is one board of the inventory as `fleet boards list` shows it: where it is, what it was last
// seen running, and which run holds its lease.
type BoardListing struct {
	Name  string
	Host  string
	Local bool // the controller's own machine
	Arch  string
	Tags  []string
	Seen  time.Time       // when Facts were taken; zero: never
	Facts *protocol.Facts // the newest facts stored for the board; nil: never measured
	Lease *protocol.Lease // the run that holds the board; nil: free
}

// Notes under the leases table.
const (
	noteLeaseTimes   = "times are UTC, by the database's clock"
	noteLeaseExpired = "expired: its controller stopped renewing it (it died); the next run that wants the board takes it"
)

// leaseTime is how lease times are shown: UTC, to the second (leases last minutes).
const leaseTime = "2006-01-02 15:04:05"

// WriteBoards prints the inventory's boards and the leases held in the database: leases lists every lease
// the database has, those of boards this inventory does not name too (another controller's).
func WriteBoards(w io.Writer, boards []BoardListing, leases []protocol.Lease, format string) error {
	f, err := ViewBoards.CheckFormat(format)
	if err != nil {
		return err
	}
	if f == FormatJSON {
		return writeBoardsJSON(w, boards, leases)
	}
	inv := table{Header: []string{"board", "host", "arch", "tags", "lease", "last seen"}, Left: 6}
	for _, b := range boards {
		host := b.Host
		if b.Local {
			host = "(this machine)"
		}
		lease := "-"
		if b.Lease != nil {
			lease = fmt.Sprintf("run %d", b.Lease.RunID)
			if b.Lease.Expired {
				lease += " (expired)"
			}
		}
		seen := "never"
		if b.Facts != nil {
			seen = fmt.Sprintf("%s: %s, Linux %s, OpenSSL %s", b.Seen.UTC().Format(timeLayout), b.Facts.Machine,
				b.Facts.Kernel, b.Facts.OpenSSLVersion)
		}
		inv.Rows = append(inv.Rows, []string{b.Name, host, orDash(b.Arch), orDash(strings.Join(b.Tags, ",")), lease, seen})
	}
	d := document{Tables: []table{inv}, Width: TextWidth}
	if len(leases) > 0 {
		lt := table{Title: "Leases", Header: []string{"board", "run", "label", "host", "pid", "since", "expires"},
			Align: "lrllrll", Notes: []string{noteLeaseTimes}}
		for _, l := range leases {
			expires := l.Expires.UTC().Format(leaseTime)
			if l.Expired {
				expires += " (expired)"
				if len(lt.Notes) == 1 {
					lt.Notes = append(lt.Notes, noteLeaseExpired)
				}
			}
			lt.Rows = append(lt.Rows, []string{l.Board, fmt.Sprint(l.RunID), orDash(l.Label), orDash(l.Host),
				fmt.Sprint(l.PID), l.Since.UTC().Format(leaseTime), expires})
		}
		d.Tables = append(d.Tables, lt)
	}
	return d.writeText(w)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// boardJSON is one board in WriteBoards' JSON.
type boardJSON struct {
	Name     string     `json:"name"`
	Host     string     `json:"host"`
	Local    bool       `json:"local"`
	Arch     string     `json:"arch"`
	Tags     []string   `json:"tags"`
	LastSeen *seenJSON  `json:"last_seen"` // null: never measured
	Lease    *leaseJSON `json:"lease"`     // null: free
}

type seenJSON struct {
	At      time.Time `json:"at"`
	Machine string    `json:"machine"`
	Kernel  string    `json:"kernel"`
	OpenSSL string    `json:"openssl"`
}

// leaseJSON is one lease in WriteBoards' JSON.
type leaseJSON struct {
	Board     string    `json:"board"`
	RunID     int64     `json:"run"`
	Label     string    `json:"label"`
	Host      string    `json:"host"`
	PID       int       `json:"pid"`
	Since     time.Time `json:"since"`
	Heartbeat time.Time `json:"heartbeat"`
	Expires   time.Time `json:"expires"`
	Expired   bool      `json:"expired"`
}

func newLeaseJSON(l protocol.Lease) *leaseJSON {
	return &leaseJSON{Board: l.Board, RunID: l.RunID, Label: l.Label, Host: l.Host, PID: l.PID, Since: l.Since.UTC(),
		Heartbeat: l.Heartbeat.UTC(), Expires: l.Expires.UTC(), Expired: l.Expired}
}

func writeBoardsJSON(w io.Writer, boards []BoardListing, leases []protocol.Lease) error {
	out := struct {
		Boards []boardJSON  `json:"boards"`
		Leases []*leaseJSON `json:"leases"` // every lease in the database, by board
	}{Boards: []boardJSON{}, Leases: []*leaseJSON{}}
	for _, b := range boards {
		j := boardJSON{Name: b.Name, Host: b.Host, Local: b.Local, Arch: b.Arch, Tags: b.Tags}
		if j.Tags == nil {
			j.Tags = []string{}
		}
		if b.Facts != nil {
			j.LastSeen = &seenJSON{At: b.Seen.UTC(), Machine: b.Facts.Machine, Kernel: b.Facts.Kernel, OpenSSL: b.Facts.OpenSSLVersion}
		}
		if b.Lease != nil {
			j.Lease = newLeaseJSON(*b.Lease)
		}
		out.Boards = append(out.Boards, j)
	}
	for _, l := range leases {
		out.Leases = append(out.Leases, newLeaseJSON(l))
	}
	return writeJSON(w, out)
}
