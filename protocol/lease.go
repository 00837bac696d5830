package protocol

import "time"

// Lease says which run holds a board: a board is measured by one run at a time, across processes and
// controllers sharing a database. The store keeps leases; the controller takes one per board around its sweep
// and shows the holder to a run that has to wait.
type Lease struct {
	Board     string
	RunID     int64
	Label     string // the holder run's label, e.g. nightly; may be empty
	Host      string // the holder controller's host name
	PID       int    // the holder controller's process id on Host
	Since     time.Time
	Heartbeat time.Time // the holder's last renewal
	Expires   time.Time // after it, the holder is taken for dead and another run may take the board
	Expired   bool      // Expires had passed when the lease was read, by the database's clock
}
