package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/fleetlab/fleet/protocol"
)

// kcapiJob is one point of a kcapi mode: plain kcapi (the kernel's pick) or kcapi:DRIVER (spec.Bind set). The
// sweep job's mode is the point's: kcapi or kcapi:DRIVER, also for the points kcapi:all asked for.
type kcapiJob struct {
	spec    kcapiSpec
	size    int
	decrypt bool
	driver  string // the /proc/crypto driver that served it: the bound one, or the kernel's pick
}

// prepareKcapiMode lists the points of mode (kcapi, kcapi:DRIVER or kcapi:all) for alg, and the skips with their
// reasons: kcapi:all yields jobs of every implementation that passed its self-test and a skip of its own for
// each other one, under the mode kcapi:DRIVER.
func (s *sweepState) prepareKcapiMode(mode, alg string) ([]sweepJob, []protocol.Skip) {
	skip := func(mode, why string) []protocol.Skip {
		return []protocol.Skip{{Mode: mode, Algorithm: alg, Reason: why}}
	}
	spec, ok := kcapiSpecOf(alg)
	if !ok {
		return nil, skip(mode, "kcapi: the agent's AF_ALG benchmark does not support "+alg)
	}
	if d, ok := protocol.KCAPIDriver(mode); ok {
		jobs, why := s.prepareKcapiDriver(alg, spec, d)
		if why != "" {
			return nil, skip(mode, why)
		}
		return jobs, nil
	}
	if mode != protocol.KCAPIAll {
		jobs, why := s.prepareKcapi(alg)
		if why != "" {
			return nil, skip(mode, why)
		}
		return jobs, nil
	}
	// the kernel makes template instances such as cbc(aes) on first use: bind the algorithm once so that
	// /proc/crypto lists what serves it (a failure here is no reason to skip: the named drivers may still bind)
	_ = kcapiProbe(spec)
	impls := protocol.Implementations(s.procCrypto(), spec.Name, spec.Kind)
	if len(impls) == 0 {
		return nil, skip(mode, "kcapi: no implementation of "+spec.Name+" in /proc/crypto")
	}
	var jobs []sweepJob
	var skips []protocol.Skip
	for _, a := range impls {
		dm := protocol.KCAPIPrefix + a.Driver
		if a.Selftest != "" && a.Selftest != "passed" {
			skips = append(skips, skip(dm, "kcapi: driver "+a.Driver+": self-test "+a.Selftest)...)
			continue
		}
		if why := protocol.CheckKCAPIDriverName(a.Driver); why != "" {
			skips = append(skips, skip(dm, "kcapi: "+why)...)
			continue
		}
		list, why := s.prepareKcapiDriver(alg, spec, a.Driver)
		if why != "" {
			skips = append(skips, skip(dm, why)...)
			continue
		}
		jobs = append(jobs, list...)
	}
	// block size by block size, every driver once (in priority order), as the sweep interleaves modes
	sort.SliceStable(jobs, func(i, j int) bool {
		a, b := jobs[i].kcapi, jobs[j].kcapi
		if a.decrypt != b.decrypt {
			return !a.decrypt
		}
		return a.size < b.size
	})
	return jobs, skips
}

// prepareKcapiDriver is prepareKcapi bound to one driver: the transform opens through it, and
// /proc/crypto must then list it as an implementation of alg's kernel algorithm (binding a driver of another
// algorithm works, and would measure the wrong cipher under alg's name).
func (s *sweepState) prepareKcapiDriver(alg string, spec kcapiSpec, driver string) ([]sweepJob, string) {
	spec.Bind = driver
	// before the bind too: the kernel refuses a driver of another kind with a bare ENOENT
	if why := kcapiDriverServes(s.procCrypto(), driver, spec, alg); why != "" && why != kcapiNotListed {
		return nil, why
	}
	directions := s.kcapiDirections(spec)
	if err := kcapiProbe(spec); err != nil {
		return nil, "kcapi: driver " + driver + ": " + err.Error()
	}
	switch why := kcapiDriverServes(s.procCrypto(), driver, spec, alg); why {
	case "":
	case kcapiNotListed:
		return nil, "kcapi: driver " + driver + " bound, yet /proc/crypto does not list it"
	default:
		return nil, why
	}
	return s.kcapiJobs(protocol.KCAPIPrefix+driver, alg, spec, directions, driver)
}

// kcapiNotListed is kcapiDriverServes's reason when /proc/crypto has no entry of the driver (yet: a template
// instance appears once bound).
const kcapiNotListed = "not listed"

// kcapiDriverServes says why driver cannot serve alg by /proc/crypto, "" when its entry is an implementation of
// spec's kernel algorithm.
func kcapiDriverServes(algs []protocol.CryptoAlg, driver string, spec kcapiSpec, alg string) string {
	for _, a := range algs {
		if a.Driver != driver {
			continue
		}
		if a.Name != spec.Name {
			return fmt.Sprintf("kcapi: driver %s implements %s, not %s (%s)", driver, a.Name, spec.Name, alg)
		}
		return ""
	}
	if algs == nil {
		return "kcapi: driver " + driver + ": /proc/crypto cannot be read to check what it implements"
	}
	return kcapiNotListed
}

// prepareKcapi lists the points of alg to measure, or says why there are none.
func (s *sweepState) prepareKcapi(alg string) ([]sweepJob, string) {
	spec, ok := kcapiSpecOf(alg)
	if !ok {
		return nil, "kcapi: the agent's AF_ALG benchmark does not support " + alg
	}
	directions := s.kcapiDirections(spec)
	if err := kcapiProbe(spec); err != nil {
		return nil, "kcapi: " + err.Error()
	}
	// the kernel instantiates templates such as cbc(aes) on first use, so read /proc/crypto after opening it
	driver := bestCryptoDriver(s.procCrypto(), spec.Name, spec.Kind)
	return s.kcapiJobs(protocol.ModeKCAPI, alg, spec, directions, driver)
}

// kcapiDirections is encryption, and decryption too when the plan asks for it and alg is a cipher.
func (s *sweepState) kcapiDirections(spec kcapiSpec) []bool {
	if s.plan.Decrypt && spec.Kind != "hash" {
		return []bool{false, true}
	}
	return []bool{false}
}

// procCrypto is the board's /proc/crypto now, nil when it cannot be read.
func (s *sweepState) procCrypto() []protocol.CryptoAlg {
	b, err := os.ReadFile(s.root + "/proc/crypto")
	if err != nil {
		return nil
	}
	algs, _ := ParseProcCrypto(bytes.NewReader(b))
	return algs
}

// kcapiJobs is a job per plan size (a multiple of the cipher's block) and direction.
func (s *sweepState) kcapiJobs(mode, alg string, spec kcapiSpec, directions []bool, driver string) ([]sweepJob, string) {
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
			jobs = append(jobs, sweepJob{mode: mode, alg: alg, kcapi: &kcapiJob{spec: spec, size: size, decrypt: dec, driver: driver}})
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
	var r kcapiResult
	var err error
	pin := s.pinnedRun(j)
	pin.onThread(s.root, func() { r, err = kcapiMeasure(ctx, k.spec, k.size, seconds, k.decrypt, s.sampleSystem) })
	if ctx.Err() != nil {
		return fmt.Errorf("sweep: %w", ctx.Err())
	}
	if err != nil {
		return s.errorf("%s %s %d bytes: %v", j.mode, j.alg, k.size, err)
	}
	if r.WallS <= 0 || r.Ops == 0 {
		return s.errorf("%s %s %d bytes: %v", j.mode, j.alg, k.size, errors.New("no operation completed"))
	}
	p := protocol.Point{
		Mode: j.mode, Algorithm: j.alg, Op: kcapiOpName(k.spec, k.decrypt), BlockSize: k.size, Threads: 1,
		Repeat: repeat, Driver: k.driver, Count: float64(r.Ops), Seconds: r.WallS, Timing: "wall",
		BytesPerSec: float64(r.Ops) * float64(k.size) / r.WallS,
	}
	if s.plan.Threads > 1 {
		p.Flags = append(p.Flags, "single-thread: kcapi measures one thread whatever the plan's threads")
	}
	setAccounting(&p, r.WallS, r.UserS, r.SysS, r.Before, r.Post)
	pin.mark(&p)
	s.window(&p, r.Before, r.Post, false)
	return s.point(&p)
}
