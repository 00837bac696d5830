package store

import (
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// RunInfo describes a run when it starts.
type RunInfo struct {
	Label       string // e.g. nightly; may be empty
	ToolVersion string
	Host        string // controller host name
	CommandLine string
	Source      string    // provenance, e.g. "imported from S00.txt"
	Started     time.Time // zero: now (DB.Now); an import may give the time the results were taken
	UUID        string    // BeginRun: the run's UUID; empty (as usual) makes a random one. Imports always make one.
}

// RunFilter selects runs. Zero fields match everything.
type RunFilter struct {
	Label  string
	Board  string          // only runs with this board
	Status protocol.Status // only runs with this status
	ID     int64           // only this run
	Limit  int             // newest N; 0: all
	Offset int             // skip the newest Offset runs first (paging)
}

// Run is one row of runs.
type Run struct {
	ID          int64
	UUID        string // names the run in every database it is copied to; ID is this database's own
	Started     time.Time
	Finished    time.Time // zero while running or when the controller died
	Label       string
	ToolVersion string
	Host        string
	CommandLine string
	Source      string
	Status      protocol.Status
	Boards      []string // board names in this run
	Points      int
	Judged      Judged // how many of Points were judged suspect or invalid, and why (Runs, Run)
}

// BoardRun is one board's part of a run.
type BoardRun struct {
	RunID  int64
	Board  string
	Status protocol.Status
	Error  string
	Facts  *protocol.Facts // nil when the probe did not get that far
	Points int
	Skips  []protocol.Skip

	Started  time.Time
	Finished time.Time // zero while running or when the controller died

	Validity        string   // the controller's verdict on the board run: ok, suspect, invalid; "" not judged
	ValidityReasons []string // why, in plain words
	Judged          Judged   // how many of Points were judged suspect or invalid, and why

	// Previous is this board's newest earlier run with facts (BoardRuns), so that a run's page can say what
	// changed on the board since; nil for the board's first.
	Previous *PreviousFacts

	Kernel *protocol.KernelHealth // the kernel's health over the sweep; nil when not recorded
}

// PreviousFacts are the facts of a board's earlier run.
type PreviousFacts struct {
	RunID int64
	Facts *protocol.Facts
}

// Measurement is one stored point with where it came from.
type Measurement struct {
	ID         int64
	RunID      int64
	RunLabel   string
	RunStarted time.Time
	RunTool    string // tool version of the run
	Board      string
	protocol.Point
}

// RawOutput is one stored tool output.
type RawOutput struct {
	RunID int64
	Board string
	protocol.Raw
}

// Filter selects measurements. Zero fields match everything.
type Filter struct {
	RunID     int64 // 0 with Latest false: all runs
	Latest    bool  // the latest run of each board (per board, its newest run that has points)
	Board     string
	Mode      string
	Algorithm string
	Size      int // -1 or 0 with SizeSet false: any
	SizeSet   bool
	Label     string
	// ForRegression reads, of one run's points (RunID or Latest, no Label), only what a regression check
	// judges by (regressionCols: the series, throughput, CPU share, timing, driver, failure, flags, validity,
	// verification) and the run's label, start and tool: the point's timings, counts, repeat, engine,
	// evidence and provenance stay zero. The dashboard's regress page reads thousands of points each time,
	// and with modernc's SQLite every column read costs. Other reads ignore it and read every column.
	ForRegression bool
}

// SeriesKey names one series over time.
type SeriesKey struct {
	Board, Mode, Algorithm string
	BlockSize              int
	Threads                int    // 0: any
	Op                     string // "": any
	KeyBits                int    // 0: any
	Curve                  string // "": any
}
