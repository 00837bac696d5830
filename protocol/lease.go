package protocol

import "time"

// Lease says which run holds a board: a board is measured by one run at a time, across processes and
// controllers sharing a database. The store keeps leases; the controller takes one per board around its sweep
// and shows the holder to a run that has to wait.
type Lease struct {
	Board string
	RunID int64
	Label string // the holder run's label, e.g. nightly; may be empty
	Host  string // the holder controller's host name
	PID   int    // the holder controller's process id on Host
	// PIDSpace is where PID names that process: the holder's kernel boot and PID namespace; empty when it
	// cannot be told (not Linux, a row an older fleet wrote). Only a holder of the asker's own space can be
	// known to be gone.
	PIDSpace string
	// Replaced is set on a lease just taken before the holder's expired: that holder, whose process was gone
	// (same PIDSpace, no such PID; its run was marked interrupted) or whose run had ended or was not in the
	// database. ReplacedWhy says which, in words ("its process is gone; that run is marked interrupted").
	Replaced    *Lease
	ReplacedWhy string
	Since       time.Time
	Heartbeat   time.Time // the holder's last renewal
	Expires     time.Time // after it, the holder is taken for dead and another run may take the board
	Expired     bool      // Expires had passed when the lease was read, by the database's clock
}

// LocalBoard is the name of the built-in board that is the controller's host itself (inventory.LocalBoard).
const LocalBoard = "local"

// LeaseKey is what a board's lease is kept under: the board's name, but for the built-in board local, which is
// a different machine for every controller, "local@<host>" (host: the controller's host name). Two hosts'
// own boards sharing one database do not wait for each other then, and two runs on one host still do. Without
// a host it is "local": runs that cannot tell their hosts apart wait for each other, the safe side. Board
// names cannot hold '@' (inventory's name rule), so no other board's key can look like a local one.
func LeaseKey(board, host string) string {
	if board == LocalBoard && host != "" {
		return LocalBoard + "@" + host
	}
	return board
}
