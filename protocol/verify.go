package protocol

import (
	"encoding/hex"
	"fmt"
)

// TypeVerify is the agent's report of one mode and algorithm's verification run (VerifyReport).
const TypeVerify = "verify"

// Verification verdicts of a point, set by the controller from the VerifyReport of its mode and algorithm.
const (
	VerificationOK      = "ok"      // every verification input gave the oracle's output through the measured path
	VerificationWrong   = "wrong"   // at least one output differed, or the path failed or hung under load
	VerificationUnknown = "unknown" // the path could not be checked (VerificationDetail says why)
)

// The deterministic verification inputs: the payload of n bytes is VerifyPattern(n, VerifySeedPayload), the key
// VerifyPattern(key length, VerifySeedKey) and the IV VerifyPattern(IV length, VerifySeedIV). Agent and
// controller build them alike, so only outputs travel.
const (
	VerifySeedPayload byte = 0x11
	VerifySeedKey     byte = 0x5a
	VerifySeedIV      byte = 0xa5
)

// VerifyEdgeSizes are the sizes every verification covers besides the sweep's own block sizes: one byte, a
// block's neighbours, a page's, and a size larger than any default block.
var VerifyEdgeSizes = []int{1, 15, 16, 17, 4095, 4096, 4097, 65536}

// VerifyFullBytes is the longest output a VerifyCase carries whole; a longer one comes as the digests of its
// VerifyChunkBytes chunks, so that the controller still finds where the first difference is.
const (
	VerifyFullBytes  = 4096 + 64
	VerifyChunkBytes = 256
)

// VerifyPattern returns n bytes of the verification pattern for seed.
func VerifyPattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// VerifyReport is what one mode and algorithm's path gave for the verification inputs, sent before its points.
// The agent does not judge: the controller compares every case with its own crypto.
type VerifyReport struct {
	Mode      string  `json:"mode"`
	Algorithm string  `json:"algorithm"`
	Path      string  `json:"path,omitempty"`    // how the inputs went through: "openssl enc -engine devcrypto", "af_alg skcipher cbc(aes)"
	Unknown   string  `json:"unknown,omitempty"` // the path cannot be checked, and why (no Cases then)
	Seconds   float64 `json:"seconds,omitempty"` // wall time the verification took on the board

	Cases       []VerifyCase       `json:"cases,omitempty"`
	Concurrency *VerifyConcurrency `json:"concurrency,omitempty"`
}

// VerifyCase is one input through the path.
type VerifyCase struct {
	Op     string   `json:"op"`               // encrypt, decrypt, digest, open, or the signature check's sign, verify and reject
	Size   int      `json:"size"`             // input bytes
	Offset int      `json:"offset,omitempty"` // kcapi: the buffers start this many bytes into an allocation (misaligned)
	Padded bool     `json:"padded,omitempty"` // openssl enc padded the input (PKCS#7); otherwise -nopad
	Chain  bool     `json:"chain,omitempty"`  // kcapi: two requests on one socket, the second continuing with the output IV of the first
	OutLen int      `json:"out_len"`          // output bytes
	Out    string   `json:"out,omitempty"`    // the output in hex, when OutLen <= VerifyFullBytes
	Chunks []string `json:"chunks,omitempty"` // otherwise the first 8 bytes of the SHA-256 of each VerifyChunkBytes chunk, in hex
	Err    string   `json:"err,omitempty"`    // the path failed on this input
	Answer string   `json:"answer,omitempty"` // verify and reject: what the path said of the signature, VerifyAccepted or VerifyRejected
	// Request is the largest request the input reached the path in: Size when in one piece, 4096 for openssl
	// enc's updates, 8192 for dgst's; 0 when the agent does not say (agents before it did).
	Request int `json:"request,omitempty"`
	// Via names the way the input went when it is not the report's Path: the agent's own AF_ALG or /dev/crypto
	// request to the kernel driver the mode's engine uses, in one piece ("af_alg skcipher cbc(aes)").
	Via string `json:"via,omitempty"`
}

// VerifyConcurrency is the same path under N parallel workers for a few seconds: every distinct output of the
// repeated input, by the hex SHA-256 of the output, with how often it came.
type VerifyConcurrency struct {
	Workers  int            `json:"workers"`
	Seconds  float64        `json:"seconds"`
	Op       string         `json:"op"`
	Size     int            `json:"size"`
	Ops      int            `json:"ops"`
	Outputs  map[string]int `json:"outputs,omitempty"`
	Errors   []string       `json:"errors,omitempty"` // the first few
	TimedOut bool           `json:"timed_out,omitempty"`
}

// Validate rejects a report no agent can send: without mode or algorithm, with sizes or counts out of range, or
// output fields that are not hex of the stated length.
func (r *VerifyReport) Validate() error {
	if r.Mode == "" || r.Algorithm == "" {
		return fmt.Errorf("verify report without mode or algorithm")
	}
	if r.Seconds < 0 || r.Seconds > 86400 || r.Seconds != r.Seconds {
		return fmt.Errorf("verify %s %s: %v seconds", r.Mode, r.Algorithm, r.Seconds)
	}
	if len(r.Cases) > 1000 {
		return fmt.Errorf("verify %s %s: %d cases", r.Mode, r.Algorithm, len(r.Cases))
	}
	for i, c := range r.Cases {
		if c.Request < 0 || c.Request > c.Size || len(c.Via) > 200 {
			return fmt.Errorf("verify %s %s case %d: request size or path out of range", r.Mode, r.Algorithm, i)
		}
		if c.Size < 0 || c.Size > 1<<24 || c.Offset < 0 || c.Offset > 4096 || c.OutLen < 0 || c.OutLen > 1<<25 {
			return fmt.Errorf("verify %s %s case %d: size, offset or output length out of range", r.Mode, r.Algorithm, i)
		}
		if c.Out != "" {
			b, err := hex.DecodeString(c.Out)
			if err != nil || len(b) != c.OutLen {
				return fmt.Errorf("verify %s %s case %d: out is not %d bytes of hex", r.Mode, r.Algorithm, i, c.OutLen)
			}
		}
		if len(c.Chunks) > 0 && len(c.Chunks) != (c.OutLen+VerifyChunkBytes-1)/VerifyChunkBytes {
			return fmt.Errorf("verify %s %s case %d: %d chunk digests for %d bytes", r.Mode, r.Algorithm, i, len(c.Chunks), c.OutLen)
		}
		if c.Answer != "" && c.Answer != VerifyAccepted && c.Answer != VerifyRejected {
			return fmt.Errorf("verify %s %s case %d: answer %q is neither %s nor %s", r.Mode, r.Algorithm, i, c.Answer, VerifyAccepted, VerifyRejected)
		}
		for _, d := range c.Chunks {
			if b, err := hex.DecodeString(d); err != nil || len(b) != 8 {
				return fmt.Errorf("verify %s %s case %d: chunk digest %q is not 8 bytes of hex", r.Mode, r.Algorithm, i, d)
			}
		}
	}
	if c := r.Concurrency; c != nil {
		if c.Workers < 0 || c.Workers > 4096 || c.Size < 0 || c.Size > 1<<24 || c.Ops < 0 || c.Seconds < 0 || c.Seconds > 3600 || c.Seconds != c.Seconds {
			return fmt.Errorf("verify %s %s: concurrency figures out of range", r.Mode, r.Algorithm)
		}
		for d, n := range c.Outputs {
			if b, err := hex.DecodeString(d); err != nil || len(b) != 32 || n < 0 {
				return fmt.Errorf("verify %s %s: concurrency output %q is not a SHA-256", r.Mode, r.Algorithm, d)
			}
		}
	}
	return nil
}

// VerifyCipherSpec is how verification drives a cipher: its key and IV lengths, and the block an unpadded input
// must fill (1 for a stream mode).
type VerifyCipherSpec struct{ KeyLen, IVLen, Block int }

// VerifyCiphers are the ciphers verification checks, by canonical name: those the controller has an oracle for
// and `openssl enc` can run (AEAD modes it cannot: their points are "unknown" unless the kcapi path checks them).
var VerifyCiphers = map[string]VerifyCipherSpec{
	"aes-128-cbc": {16, 16, 16}, "aes-192-cbc": {24, 16, 16}, "aes-256-cbc": {32, 16, 16},
	"aes-128-ecb": {16, 0, 16}, "aes-192-ecb": {24, 0, 16}, "aes-256-ecb": {32, 0, 16},
	"aes-128-ctr": {16, 16, 1}, "aes-192-ctr": {24, 16, 1}, "aes-256-ctr": {32, 16, 1},
	"des-ede3-cbc": {24, 8, 8},
}

// VerifyDigests are the digests verification checks, with their output lengths.
var VerifyDigests = map[string]int{
	"md5": 16, "sha1": 20, "sha224": 28, "sha256": 32, "sha384": 48, "sha512": 64, "sha3-256": 32, "sha3-512": 64,
}
