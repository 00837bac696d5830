package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// errGone is the controller closing the agent's stdin mid-sweep.
var errGone = errors.New("stdin closed: the controller went away")

// runSweep prints, for every point of the plan, the raw output of its openssl command and the point, the points
// spread evenly over b.sweep from start, then done. A mode its facts do not have available is skipped with their
// reason, as the agent does (agent/sweep.go). It stops when gone is closed.
func (b board) runSweep(enc *protocol.Encoder, plan protocol.Plan, start time.Time, gone <-chan struct{}) error {
	facts := map[string]protocol.ModeFact{}
	for _, m := range b.facts().Modes {
		facts[m.Mode] = m
	}
	var modes []string
	for _, mode := range plan.Modes {
		mf, known := facts[mode]
		switch {
		case !known:
			enc.Encode(protocol.TypeSkip, &protocol.Skip{Mode: mode, Reason: "unknown mode"})
		case !mf.Available:
			enc.Encode(protocol.TypeSkip, &protocol.Skip{Mode: mode, Reason: mf.Reason})
		default:
			modes = append(modes, mode)
		}
	}
	sizes := plan.Sizes
	if len(sizes) == 0 {
		sizes = protocol.DefaultSizes
	}
	type slot struct {
		mode, alg string
		size, rep int
	}
	var slots []slot
	for rep := range max(plan.Repeats, 1) {
		for _, alg := range plan.Algorithms {
			for _, size := range sizes {
				for _, mode := range modes {
					slots = append(slots, slot{mode, alg, size, rep})
				}
			}
		}
	}
	per := b.sweep / time.Duration(max(len(slots), 1))
	for i, s := range slots {
		select {
		case <-gone:
			return errGone
		case <-time.After(time.Until(start.Add(time.Duration(i+1) * per))):
		}
		secs := max(plan.Seconds, 1)
		size := max(s.size, 1)
		bps := 1e8 + float64(size)*1e4
		count := bps * secs / float64(size)
		argv := []string{"openssl", "speed", "-elapsed", "-mr", "-seconds", fmt.Sprint(secs), "-bytes", fmt.Sprint(size), "-evp", s.alg}
		raw := &protocol.Raw{ID: i + 1, Command: argv,
			Stdout: fmt.Sprintf("+DT:%s:%d:%d\n+R:%d:%s:%f\n%s", s.alg, int(secs), size, int(count), s.alg, secs,
				strings.Repeat("# simulated openssl speed output\n", 12)),
			Stderr: "version: 3.0.19\nbuilt on: simulated\noptions: bn(64,64)\ncompiler: gcc\nCPUINFO: simulated\n"}
		if s.mode == "soft" {
			raw.Env = []string{"OPENSSL_ia32cap=~0x200000200000000:~0x60020000000"}
		}
		enc.Encode(protocol.TypeRaw, raw)
		err := enc.Encode(protocol.TypePoint, &protocol.Point{Mode: s.mode, Algorithm: s.alg, Op: "encrypt", BlockSize: size,
			Threads: 1, Repeat: s.rep, Count: count, Seconds: secs, Timing: "wall", BytesPerSec: bps,
			WallS: secs + 0.01, UserS: secs, SysS: 0.001, CPUPct: 99.5, RawID: i + 1, Line: 2})
		if err != nil {
			return fmt.Errorf("write point: %w", err)
		}
	}
	return enc.Encode(protocol.TypeDone, &protocol.Done{Points: len(slots)})
}
