package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/fleetlab/fleet/protocol"
)

// kcapiJob is one point of the kcapi mode.
type kcapiJob struct {
	spec    kcapiSpec
	size    int
	decrypt bool
	driver  string
}

// prepareKcapi lists the points of alg to measure, or says why there are none.
func (s *sweepState) prepareKcapi(alg string) ([]sweepJob, string) {
	spec, ok := kcapiSpecs[alg]
	if !ok {
		return nil, "kcapi: the agent's AF_ALG benchmark does not support " + alg
	}
	directions := []bool{false}
	if s.plan.Decrypt && spec.Kind != "hash" {
		directions = append(directions, true)
	}
	// A kernel without the algorithm is a skip. Whether its answers are right is the verification's to say
	// (verify_kcapi.go, judged by the controller): a wrong driver is reported as wrong, not skipped.
	conn, err := kcapiOpen(spec.Kind, spec.Name, make([]byte, spec.KeyLen), spec.TagLen)
	if err != nil {
		return nil, "kcapi: " + err.Error()
	}
	conn.Close()
	// the kernel instantiates templates such as cbc(aes) on first use, so read /proc/crypto after opening it
	driver := ""
	if b, err := os.ReadFile(s.root + "/proc/crypto"); err == nil {
		if algs, err := ParseProcCrypto(bytes.NewReader(b)); err == nil {
			driver = bestCryptoDriver(algs, spec.Name, spec.Kind)
		}
	}
	sizes := s.plan.Sizes
	if len(sizes) == 0 {
		sizes = protocol.DefaultSizes
	}
	var jobs []sweepJob
	for _, dec := range directions {
		for _, size := range sizes {
			if size <= 0 || size%spec.Block != 0 {
				continue
			}
			jobs = append(jobs, sweepJob{mode: "kcapi", alg: alg, kcapi: &kcapiJob{spec: spec, size: size, decrypt: dec, driver: driver}})
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Sprintf("kcapi: no plan size is a multiple of %s's %d-byte block", spec.Name, spec.Block)
	}
	return jobs, ""
}

// runKcapi measures one kcapi point and sends it.
func (s *sweepState) runKcapi(ctx context.Context, j sweepJob, repeat int) error {
	k := j.kcapi
	seconds := s.plan.Seconds
	if seconds <= 0 {
		seconds = 3
	}
	r, err := kcapiMeasure(ctx, k.spec, k.size, seconds, k.decrypt, s.root)
	if ctx.Err() != nil {
		return fmt.Errorf("sweep: %w", ctx.Err())
	}
	if err != nil {
		return s.errorf("kcapi %s %d bytes: %v", j.alg, k.size, err)
	}
	if r.WallS <= 0 || r.Ops == 0 {
		return s.errorf("kcapi %s %d bytes: %v", j.alg, k.size, errors.New("no operation completed"))
	}
	p := protocol.Point{
		Mode: "kcapi", Algorithm: j.alg, Op: kcapiOpName(k.spec, k.decrypt), BlockSize: k.size, Threads: 1,
		Repeat: repeat, Driver: k.driver, Count: float64(r.Ops), Seconds: r.WallS, Timing: "wall",
		BytesPerSec: float64(r.Ops) * float64(k.size) / r.WallS,
	}
	if s.plan.Threads > 1 {
		p.Flags = append(p.Flags, "single-thread: kcapi measures one thread whatever the plan's threads")
	}
	setAccounting(&p, r.WallS, r.UserS, r.SysS, r.Before, r.Post)
	return s.point(&p)
}
