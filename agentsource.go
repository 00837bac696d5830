// Package fleetsrc carries the source of the agent inside the controller, so that a controller installed with
// `go install github.com/fleetlab/fleet/cmd/fleet@version` can build the agent of its own version for any board
// without a checkout. fleet.BuildAgent extracts it into a temporary module directory and builds there.
package fleetsrc

import "embed"

// FS holds go.mod, go.sum and the Go files of the agent, the pure leaf packages it imports (protocol,
// opensslspeed, precision, validity) and its main package. Test files are embedded
// too (a pattern cannot exclude them) but are skipped when the source is hashed and extracted.
//
//go:embed go.mod go.sum agent/*.go protocol/*.go opensslspeed/*.go precision/*.go validity/*.go cmd/fleet-agent/*.go
var FS embed.FS
