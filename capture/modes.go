package capture

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/reftable"
)

// The modes a capture may be stored under. They are here, not in a front end, so that fleet import and any
// other caller of Import and ReadReference refuse the same ones.

// ErrNotSpeedMode means a mode names a path `openssl speed` never measures: ssh (fleet's SSH transfers) and
// kcapi (the agent's own AF_ALG benchmark) are fleet's measurements, and a capture stored under them would pass
// for one.
var ErrNotSpeedMode = errors.New("not a mode of openssl speed")

// CheckMode refuses what cannot be the mode of an openssl speed capture: a name that is no mode at all
// (inventory.CheckMode's error) or a mode openssl speed never measures (ErrNotSpeedMode, with the modes it
// can have).
func CheckMode(m string) error {
	if err := inventory.CheckMode(m); err != nil {
		return err
	}
	if m == protocol.ModeSSH || strings.HasPrefix(m, protocol.ModeKCAPI) {
		return fmt.Errorf("%w (want soft, cpu, devcrypto, afalg, engine:NAME or provider:NAME)", ErrNotSpeedMode)
	}
	return nil
}

// CheckReferenceMode accepts a fleet mode or the reference's own "accelerator" (an engine the vendor did not
// say how it reached), the modes a published table's columns may be stored under.
func CheckReferenceMode(m string) error {
	if m == reftable.ModeAccelerator {
		return nil
	}
	return inventory.CheckMode(m)
}

// checkReferenceModes refuses a mode of opts no published figure can be stored under: the one of columns that
// name none, and each column's.
func checkReferenceModes(opts ReferenceOptions) error {
	if opts.Mode != "" {
		if err := CheckReferenceMode(opts.Mode); err != nil {
			return fmt.Errorf("read reference: %w", err)
		}
	}
	for k, m := range opts.Columns {
		if err := CheckReferenceMode(m); err != nil {
			return fmt.Errorf("read reference: column %q: %w", k, err)
		}
	}
	return nil
}
