package agent

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// verifyKcapiOffsets are where the buffers start in their allocations: aligned, and odd (a misaligned
// scatterlist is where drivers have been wrong).
var verifyKcapiOffsets = []int{0, 1}

// verifyKcapi runs the verification inputs through AF_ALG bound to bind (the kernel name the mode measures, or
// the driver name of kcapi:DRIVER), on the same socket type the benchmark uses, within the path's one deadline:
// a request stuck in the driver is left behind at it, and the later inputs are skipped, naming it.
func (s *sweepState) verifyKcapi(ctx context.Context, mode, alg, bind string) protocol.VerifyReport {
	spec, ok := kcapiSpecOf(alg)
	if !ok {
		return protocol.VerifyReport{Unknown: "kcapi: the agent's AF_ALG benchmark does not support " + alg}
	}
	if bind == "" {
		bind = spec.Name
	}
	r := protocol.VerifyReport{Path: "af_alg " + spec.Kind + " " + bind}
	ops := []string{"encrypt", "decrypt"}
	switch spec.Kind {
	case "hash":
		ops = []string{"digest"}
	case "aead":
		ops = []string{"encrypt", "open"}
	}
	d := s.pathDeadline(mode, alg)
	one := func(op string, n, off int, chain bool) protocol.VerifyCase {
		c, err := within(d, func() protocol.VerifyCase { return kcapiVerifyCase(spec, bind, op, n, off, chain) })
		if err != nil {
			req := n
			if chain {
				req = n / 2
			}
			c = protocol.VerifyCase{Op: op, Size: n, Offset: off, Chain: chain, Err: err.Error(), Request: req}
		}
		return c
	}
	for _, n := range verifySizes(s.plan) {
		if n%spec.Block != 0 {
			continue // AF_ALG refuses partial blocks of ECB and CBC
		}
		for _, off := range verifyKcapiOffsets {
			for _, op := range ops {
				r.Cases = append(r.Cases, one(op, n, off, false))
			}
		}
	}
	if spec.Kind == "skcipher" && spec.IVLen > 0 {
		// the IV the driver hands back must continue the chain: two 4 KiB requests, the second without an IV
		r.Cases = append(r.Cases, one("encrypt", 8192, 0, true))
	}
	if s.checkedUnderLoad(spec.Kind, bind) {
		return r // afalg's check ran these very requests (verify_engine.go)
	}
	if workers := s.verifyWorkers(protocol.ModeKCAPI); workers > 0 && !d.expired() {
		s.markUnderLoad(spec.Kind, bind)
		r.Concurrency = kcapiConcurrency(ctx, spec, bind, workers, s.verifySeconds(), verifyConcurrencySize(s.plan))
	}
	return r
}

// kcapiVerifyCase runs one input: op encrypt, decrypt (the pattern taken as ciphertext), digest, or open (AEAD:
// the kernel's own sealing of the pattern, opened again), at offset off in its buffers; chain splits the input
// in two requests on one socket, the second continuing with the IV the first left.
func kcapiVerifyCase(spec kcapiSpec, bind, op string, n, off int, chain bool) protocol.VerifyCase {
	req := n // one sendmsg and one read: one request of the whole input
	if chain {
		req = n / 2
	}
	fail := func(err error) protocol.VerifyCase {
		return protocol.VerifyCase{Op: op, Size: n, Offset: off, Chain: chain, Err: err.Error(), Request: req}
	}
	key := protocol.VerifyPattern(spec.KeyLen, protocol.VerifySeedKey)
	iv := protocol.VerifyPattern(spec.IVLen, protocol.VerifySeedIV)
	conn, err := kcapiOpen(spec.Kind, bind, key, spec.TagLen)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	in := placed(protocol.VerifyPattern(n, protocol.VerifySeedPayload), off)
	var out []byte
	switch {
	case spec.Kind == "hash":
		out = placed(make([]byte, spec.Digest), off)
		err = conn.hash(in, out)
	case spec.Kind == "aead":
		sealed := placed(make([]byte, n+spec.TagLen), off)
		err = conn.cipher(kcapiCipherControl(false, iv, true, 0), in, sealed)
		out = sealed
		if err == nil && op == "open" {
			out = placed(make([]byte, n), off)
			err = conn.cipher(kcapiCipherControl(true, iv, true, 0), sealed, out)
		}
	case chain:
		half := n / 2
		out = placed(make([]byte, n), off)
		err = conn.cipher(kcapiCipherControl(false, iv, false, 0), in[:half], out[:half])
		if err == nil {
			err = conn.cipher(kcapiCipherControl(false, nil, false, 0), in[half:], out[half:])
		}
	default:
		out = placed(make([]byte, n), off)
		err = conn.cipher(kcapiCipherControl(op == "decrypt", iv, false, 0), in, out)
	}
	if err != nil {
		return fail(err)
	}
	c := newVerifyCase(op, n, out)
	c.Offset, c.Chain, c.Request = off, chain, req
	return c
}

// placed copies b to offset off of a fresh allocation and returns that slice.
func placed(b []byte, off int) []byte {
	buf := make([]byte, len(b)+off)
	copy(buf[off:], b)
	return buf[off:]
}

// kcapiConcurrency runs workers sessions in parallel for d, each on its own socket and OS thread, and counts
// their outputs. A worker stuck in the kernel cannot be interrupted: after d and a minute more the check ends
// as timed out and leaves it behind (the agent's exit ends it).
func kcapiConcurrency(ctx context.Context, spec kcapiSpec, bind string, workers int, d time.Duration, size int) *protocol.VerifyConcurrency {
	op := "encrypt"
	if spec.Kind == "hash" {
		op = "digest"
	}
	size -= size % spec.Block
	c := &protocol.VerifyConcurrency{Workers: workers, Seconds: d.Seconds(), Op: op, Size: size}
	hung := func(left int) string {
		return fmt.Sprintf("%d workers still in the kernel a minute after the check should have ended", left)
	}
	runConcurrency(ctx, c, workers, d, time.Minute, hung, func(w int, more func() bool, mine *distinctOutputs) ([]string, bool) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := kcapiWorker(spec, bind, size, more, mine); err != nil {
			return []string{fmt.Sprintf("worker %d: %v", w, err)}, false
		}
		return nil, false
	})
	return c
}

// kcapiWorker is one worker of kcapiConcurrency: a session on a socket of its own, the same input again and
// again while more() says so.
func kcapiWorker(spec kcapiSpec, bind string, size int, more func() bool, mine *distinctOutputs) error {
	key := protocol.VerifyPattern(spec.KeyLen, protocol.VerifySeedKey)
	conn, err := kcapiOpen(spec.Kind, bind, key, spec.TagLen)
	if err != nil {
		return err
	}
	defer conn.Close()
	in := protocol.VerifyPattern(size, protocol.VerifySeedPayload)
	out := make([]byte, size+spec.TagLen)
	if spec.Kind == "hash" {
		out = make([]byte, spec.Digest)
	}
	oob := kcapiCipherControl(false, protocol.VerifyPattern(spec.IVLen, protocol.VerifySeedIV), spec.Kind == "aead", 0)
	for more() {
		if spec.Kind == "hash" {
			err = conn.hash(in, out)
		} else {
			err = conn.cipher(oob, in, out)
		}
		if err != nil {
			return err
		}
		mine.add(out)
	}
	return nil
}
