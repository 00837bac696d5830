package agent

import (
	"context"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// planJobs prepares the sweep's jobs: jobs[alg][mode×target] in plan order, each a list of commands (one per
// block size, encrypt then decrypt). A mode or algorithm that cannot be measured is a skip line and leaves its
// cells empty; with plan.Verify each (mode, algorithm) is verified as it is prepared, before anything is
// measured.
func (s *sweepState) planJobs(ctx context.Context, opensslPath string, version *opensslVersion) ([][][]sweepJob, error) {
	available := map[string]protocol.ModeFact{}
	for _, m := range s.facts.Modes {
		available[m.Mode] = m
	}
	targets, pinWhy := s.pinTargets()
	jobs := make([][][]sweepJob, len(s.plan.Algorithms))
	for ai := range jobs {
		jobs[ai] = make([][]sweepJob, len(s.plan.Modes)*len(targets))
	}
	seen := map[string]bool{}
	for mi, mode := range s.plan.Modes {
		if seen[mode] {
			continue
		}
		seen[mode] = true
		if why, skip := modeSkip(available, mode, pinWhy); skip {
			if err := s.skip(mode, "", why); err != nil {
				return nil, err
			}
			continue
		}
		for ai, alg := range s.plan.Algorithms {
			cells := jobs[ai][mi*len(targets) : (mi+1)*len(targets)]
			if err := s.planAlgorithm(ctx, opensslPath, version, mode, alg, targets, cells); err != nil {
				return nil, err
			}
		}
	}
	s.groupAsym(jobs, version)
	return jobs, nil
}

// modeSkip is why mode is measured for no algorithm, if it is not: a mode the probe does not know, one it found
// unavailable (with its reason, which may be empty), or pinning the board cannot do (pinWhy).
func modeSkip(available map[string]protocol.ModeFact, mode, pinWhy string) (why string, skip bool) {
	mf, known := available[mode]
	switch {
	case !known:
		return "unknown mode", true
	case !mf.Available:
		return mf.Reason, true
	case pinWhy != "":
		return pinWhy, true
	}
	return "", false
}

// planAlgorithm prepares the jobs of one (mode, algorithm) on each target into cells (one per target). The skips
// of the preparation are sent once, as they are the same for every target; an algorithm one target cannot
// measure is skipped as a whole, the cells of the targets before it kept.
func (s *sweepState) planAlgorithm(ctx context.Context, opensslPath string, version *opensslVersion, mode, alg string, targets []*pinTarget, cells [][]sweepJob) error {
	var list []sweepJob
	var why string
	for ti, t := range targets {
		var tl []sweepJob
		var tskips []protocol.Skip
		tl, tskips, why = s.preparePinned(opensslPath, version, mode, alg, t)
		if ti == 0 { // the same for every target
			for _, sk := range tskips {
				if err := s.skip(sk.Mode, sk.Algorithm, sk.Reason); err != nil {
					return err
				}
			}
		}
		if why != "" {
			break
		}
		cells[ti] = tl
		list = append(list, tl...)
	}
	if why != "" {
		return s.skip(mode, alg, why)
	}
	if !s.plan.Verify {
		return nil
	}
	// before it is measured: the same path (for kcapi:DRIVER and each driver of kcapi:all, bound to that driver,
	// under the mode its points are stored as), the verification inputs, the outputs to the controller
	if err := s.verifyMode(ctx, opensslPath, version, mode, alg, list); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}
