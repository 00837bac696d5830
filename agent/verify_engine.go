package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// An engine that hands its work to a kernel driver the agent reaches itself (afalg: AF_ALG bound to cbc(aes);
// devcrypto: /dev/crypto) is verified in two parts. The agent sends every input through the driver itself, one
// request each (directCases with chunk 0): the same driver, by the same name, the engine's requests reach, at
// every size and for a fraction of an openssl start's cost (an engine's start is the dearest there is: 0.27 –
// 0.7 s an `openssl enc` with the afalg or devcrypto engine on the QEMU boards, bench/README §l). openssl runs
// only what the engine and EVP do around the driver, which no request of the agent's shows: the IV carried from
// one 4 KiB update to the next (the largest input, each way) and a final block after updates (the largest input
// that is not a multiple of 16 B: padded for CBC and ECB, a partial counter block for CTR). Those runs also show
// that the engine loaded and served. The concurrency check runs the agent's own requests too: a few openssl
// starts a worker in its seconds measured the starts, not the driver under load.

// engineGlue says whether the engine of mode and alg is verified in two parts: it has a one-piece way, and the
// agent runs on the board (the shell path has no agent there to make the requests).
func (s *sweepState) engineGlue(mode, alg string) bool {
	return directVia(mode, alg) != "" && s.remote == nil
}

// glueRuns is the openssl part of a two-part verification: which encryptions and decryptions of sizes run
// through `openssl enc`.
func glueRuns(sizes []int) func(decrypt bool, n int) bool {
	largest, tail := 0, 0
	for _, n := range sizes {
		largest = max(largest, n)
		if n%16 != 0 {
			tail = max(tail, n)
		}
	}
	return func(decrypt bool, n int) bool {
		return n == largest || !decrypt && n == tail
	}
}

// directConcurrency is the concurrency check of a two-part verification: workers goroutines, each sending the
// size-byte input through the driver by the agent's own requests (encrypt, or digest), for d. A request stuck
// in the kernel cannot be interrupted: a minute after d the check ends as timed out and leaves it behind.
func (s *sweepState) directConcurrency(ctx context.Context, mode, alg string, digest bool, block, workers int, d time.Duration, size int) *protocol.VerifyConcurrency {
	op := "encrypt"
	if digest {
		op = "digest"
	}
	c := &protocol.VerifyConcurrency{Workers: workers, Seconds: d.Seconds(), Op: op, Size: size}
	do := s.direct
	if do == nil {
		do = s.kernelRequest
	}
	in := protocol.VerifyPattern(size, protocol.VerifySeedPayload)
	if size%block != 0 {
		in = pkcs7Pad(in, block) // as the controller pads a concurrency input that is not whole blocks
	}
	hung := func(left int) string {
		return fmt.Sprintf("%d workers still in the kernel a minute after the check should have ended", left)
	}
	runConcurrency(ctx, c, workers, d, time.Minute, hung, func(w int, more func() bool, mine *distinctOutputs) ([]string, bool) {
		for more() {
			out, err := do(mode, alg, op, in)
			if err != nil {
				return []string{fmt.Sprintf("worker %d: %v", w, err)}, false
			}
			mine.add(out)
		}
		return nil, false
	})
	return c
}

// checkedUnderLoad reports whether this sweep ran the concurrency check of AF_ALG kind and name already: mode
// afalg's check (the agent's requests on cbc(aes)) and kcapi's on cbc(aes) are the same requests to the same
// driver, and one check of a driver under load is enough.
func (s *sweepState) checkedUnderLoad(kind, name string) bool {
	return s.loaded["af_alg "+kind+" "+name]
}

// markUnderLoad records that the concurrency check of AF_ALG kind and name ran.
func (s *sweepState) markUnderLoad(kind, name string) {
	if s.loaded == nil {
		s.loaded = map[string]bool{}
	}
	s.loaded["af_alg "+kind+" "+name] = true
}
