package agent

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// kcapiSpec says how the agent's own benchmark drives one algorithm through AF_ALG.
type kcapiSpec struct {
	Kind   string // skcipher, aead, hash
	Name   string // kernel name: cbc(aes), gcm(aes), sha256
	Bind   string // the /proc/crypto driver name to bind instead of Name (mode kcapi:DRIVER), "" for the kernel's pick
	KeyLen int
	IVLen  int
	Block  int // sizes must be a multiple of it (ECB, CBC)
	TagLen int // AEAD tag
	Digest int // hash output length
}

// kcapiAlg is one algorithm the kcapi mode measures: its canonical name and how to drive it.
type kcapiAlg struct {
	alg  string
	spec kcapiSpec
}

// kcapiSpecs are the algorithms the kcapi mode measures. A list, not a map: a map literal is code run at
// init (2.5 KB of the ARMv5 agent), a list of constants is data laid out by the compiler.
var kcapiSpecs = []kcapiAlg{
	{"aes-128-cbc", kcapiSpec{Kind: "skcipher", Name: "cbc(aes)", KeyLen: 16, IVLen: 16, Block: 16}},
	{"aes-192-cbc", kcapiSpec{Kind: "skcipher", Name: "cbc(aes)", KeyLen: 24, IVLen: 16, Block: 16}},
	{"aes-256-cbc", kcapiSpec{Kind: "skcipher", Name: "cbc(aes)", KeyLen: 32, IVLen: 16, Block: 16}},
	{"aes-128-ecb", kcapiSpec{Kind: "skcipher", Name: "ecb(aes)", KeyLen: 16, Block: 16}},
	{"aes-192-ecb", kcapiSpec{Kind: "skcipher", Name: "ecb(aes)", KeyLen: 24, Block: 16}},
	{"aes-256-ecb", kcapiSpec{Kind: "skcipher", Name: "ecb(aes)", KeyLen: 32, Block: 16}},
	{"aes-128-ctr", kcapiSpec{Kind: "skcipher", Name: "ctr(aes)", KeyLen: 16, IVLen: 16, Block: 1}},
	{"aes-192-ctr", kcapiSpec{Kind: "skcipher", Name: "ctr(aes)", KeyLen: 24, IVLen: 16, Block: 1}},
	{"aes-256-ctr", kcapiSpec{Kind: "skcipher", Name: "ctr(aes)", KeyLen: 32, IVLen: 16, Block: 1}},
	{"aes-128-gcm", kcapiSpec{Kind: "aead", Name: "gcm(aes)", KeyLen: 16, IVLen: 12, Block: 1, TagLen: 16}},
	{"aes-256-gcm", kcapiSpec{Kind: "aead", Name: "gcm(aes)", KeyLen: 32, IVLen: 12, Block: 1, TagLen: 16}},
	{"sha1", kcapiSpec{Kind: "hash", Name: "sha1", Block: 1, Digest: 20}},
	{"sha224", kcapiSpec{Kind: "hash", Name: "sha224", Block: 1, Digest: 28}},
	{"sha256", kcapiSpec{Kind: "hash", Name: "sha256", Block: 1, Digest: 32}},
	{"sha384", kcapiSpec{Kind: "hash", Name: "sha384", Block: 1, Digest: 48}},
	{"sha512", kcapiSpec{Kind: "hash", Name: "sha512", Block: 1, Digest: 64}},
	{"md5", kcapiSpec{Kind: "hash", Name: "md5", Block: 1, Digest: 16}},
}

// kcapiSpecOf is how the kcapi mode drives alg, a canonical name; false for one it does not measure.
func kcapiSpecOf(alg string) (kcapiSpec, bool) {
	for _, a := range kcapiSpecs {
		if a.alg == alg {
			return a.spec, true
		}
	}
	return kcapiSpec{}, false
}

// bindName is the salg_name the session binds: the driver a kcapi:DRIVER mode names, else the algorithm.
func (spec kcapiSpec) bindName() string {
	if spec.Bind != "" {
		return spec.Bind
	}
	return spec.Name
}

// kcapiPattern fills b with a fixed, non-trivial pattern so results are reproducible and checkable.
func kcapiPattern(b []byte, seed byte) []byte {
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// kcapiSession is an open transform ready to run one operation repeatedly at one size.
type kcapiSession struct {
	spec    kcapiSpec
	conn    *kcapiConn
	oob     []byte
	in, out []byte
	decrypt bool
}

// newKcapiSession opens the transform and prepares the buffers for size bytes of payload.
func newKcapiSession(spec kcapiSpec, size int, decrypt bool) (*kcapiSession, error) {
	key := kcapiPattern(make([]byte, spec.KeyLen), 0x5a)
	iv := kcapiPattern(make([]byte, spec.IVLen), 0xa5)
	conn, err := kcapiOpen(spec.Kind, spec.bindName(), key, spec.TagLen)
	if err != nil {
		return nil, err
	}
	s := &kcapiSession{spec: spec, conn: conn, decrypt: decrypt}
	payload := kcapiPattern(make([]byte, size), 0x11)
	switch spec.Kind {
	case "hash":
		s.in, s.out = payload, make([]byte, spec.Digest)
	case "skcipher":
		s.oob = kcapiCipherControl(decrypt, iv, false, 0)
		s.in, s.out = payload, make([]byte, size)
	case "aead":
		if !decrypt {
			s.oob = kcapiCipherControl(false, iv, true, 0)
			s.in, s.out = payload, make([]byte, size+spec.TagLen)
			break
		}
		// decryption checks the tag, so it needs a real ciphertext: make one with the kernel first
		sealed := make([]byte, size+spec.TagLen)
		if err := conn.cipher(kcapiCipherControl(false, iv, true, 0), payload, sealed); err != nil {
			conn.Close()
			return nil, err
		}
		s.oob = kcapiCipherControl(true, iv, true, 0)
		s.in, s.out = sealed, make([]byte, size)
	default:
		conn.Close()
		return nil, fmt.Errorf("kcapi %s: unknown kind %q", spec.Name, spec.Kind)
	}
	return s, nil
}

func (s *kcapiSession) once() error {
	if s.spec.Kind == "hash" {
		return s.conn.hash(s.in, s.out)
	}
	return s.conn.cipher(s.oob, s.in, s.out)
}

func (s *kcapiSession) Close() { s.conn.Close() }

// kcapiProbe opens spec's transform (bound to its driver when it names one): a kernel or driver without it is a
// skip. Whether its answers are right is the verification's to say (verify_kcapi.go, judged by the controller):
// a wrong driver is reported as wrong, not skipped. Opening also makes the kernel instantiate a template such as
// cbc(aes), so that /proc/crypto lists what serves it.
func kcapiProbe(spec kcapiSpec) error {
	conn, err := kcapiOpen(spec.Kind, spec.bindName(), make([]byte, spec.KeyLen), spec.TagLen)
	if err != nil {
		return err
	}
	conn.Close()
	return nil
}
func kcapiOpName(spec kcapiSpec, decrypt bool) string {
	switch {
	case spec.Kind == "hash":
		return "digest"
	case decrypt:
		return "decrypt"
	}
	return "encrypt"
}

// kcapiResult is one measured point of the kcapi mode before it becomes a protocol.Point.
type kcapiResult struct {
	Ops          int64
	WallS        float64
	UserS, SysS  float64 // of the measuring thread: kernel work done in its system calls shows as sys
	Before, Post systemSample
}

// kcapiMeasure runs spec at size for about seconds, counting operations over wall time. It stops early, with
// ctx's error, when ctx ends.
func kcapiMeasure(ctx context.Context, spec kcapiSpec, size int, seconds float64, decrypt bool, sample func() systemSample) (kcapiResult, error) {
	var r kcapiResult
	s, err := newKcapiSession(spec, size, decrypt)
	if err != nil {
		return r, err
	}
	defer s.Close()
	dur := time.Duration(seconds * float64(time.Second))
	// measure on one OS thread, so its rusage is the work of this benchmark and not of Go's other threads
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r.Before = sample()
	ruBefore, ruErr := threadRusage()
	start := time.Now()
	done := ctx.Done()
	for {
		if err := s.once(); err != nil {
			return r, err
		}
		r.Ops++
		if time.Since(start) >= dur {
			break
		}
		select {
		case <-done:
			return r, fmt.Errorf("kcapi %s: %w", spec.Name, ctx.Err())
		default:
		}
	}
	r.WallS = time.Since(start).Seconds()
	ruAfter, ruErr2 := threadRusage()
	r.Post = sample()
	if ruErr == nil && ruErr2 == nil {
		r.UserS = ruAfter.user - ruBefore.user
		r.SysS = ruAfter.sys - ruBefore.sys
	}
	return r, nil
}
