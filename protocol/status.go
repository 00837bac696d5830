package protocol

// Status is the outcome of a board's part of a run, or of a whole run. One type for both, stored as its string.
type Status string

// Statuses. A board ends ok, partial, failed or interrupted; a run is running until it ends, then takes the
// worst of its boards (or imported, for `fleet import`; reference, for `fleet import --reference`).
const (
	StatusRunning     Status = "running"     // still going, or the controller died (shown as incomplete)
	StatusOK          Status = "ok"          // everything asked for was measured
	StatusPartial     Status = "partial"     // some points stored, then it failed
	StatusFailed      Status = "failed"      // nothing measured
	StatusInterrupted Status = "interrupted" // cancelled by the user
	StatusImported    Status = "imported"    // made by `fleet import`
	// StatusReference is a vendor's published table imported as data (`fleet import --reference`): never a
	// measurement, so never a baseline, a latest run or a point of a series' history.
	StatusReference Status = "reference"
)

// Valid reports whether s is one of the statuses above.
func (s Status) Valid() bool {
	switch s {
	case StatusRunning, StatusOK, StatusPartial, StatusFailed, StatusInterrupted, StatusImported, StatusReference:
		return true
	}
	return false
}
