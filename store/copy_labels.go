package store

import (
	"context"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// checkCopyLabels refuses a copy after which a label would name both a reference and measured runs in dst:
// such a label selects no run any more (ResolveRun's ErrLabelMixed), so `results --run`, `show`, `compare
// --run` and the dashboard would stop answering for runs that worked in either database. It is checked before
// anything is copied, against dst's runs and the runs to copy together, so the copy stays all or nothing on it.
func checkCopyLabels(ctx context.Context, dst *DB, todo []copyRun) error {
	type kinds struct{ measured, reference int }
	seen := map[string]*kinds{}
	first := map[string]copyRun{}
	for _, r := range todo {
		if r.label == "" {
			continue
		}
		k := seen[r.label]
		if k == nil {
			m, ref, err := dst.labelKinds(ctx, r.label)
			if err != nil {
				return err
			}
			k = &kinds{m, ref}
			seen[r.label], first[r.label] = k, r
		}
		if r.status == string(protocol.StatusReference) {
			k.reference++
		} else {
			k.measured++
		}
		if k.measured > 0 && k.reference > 0 {
			return fmt.Errorf("copy run %d (%s, label %q): %w in %s after the copy (%d measured, %d reference): "+
				"a label names references or measured runs, never both; copy the others with --runs, or give one "+
				"side another label first (nothing copied)", r.id, kindName(r), r.label, ErrLabelMixed, dst.Path,
				k.measured, k.reference)
		}
	}
	return nil
}

func kindName(r copyRun) string {
	if r.status == string(protocol.StatusReference) {
		return "a reference"
	}
	return "a measured run"
}
