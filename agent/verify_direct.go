package agent

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"github.com/fleetlab/fleet/protocol"
	"golang.org/x/sys/unix"
)

// The agent's own requests, each input in one piece. `openssl enc` hands a cipher at most 4 KiB at once and
// `openssl dgst` a digest at most 8 KiB (opensslEncChunk, opensslDgstChunk), while `openssl speed -bytes 8192`
// sends its whole block as one request: at 8 and 16 KiB a scatter-gather request of several pages, which is where
// drivers break. So for the modes whose engine hands the work to a kernel driver the agent can reach itself, the
// agent sends every larger input as one request of its own, through the interface and name the engine uses:
//   - afalg: an AF_ALG skcipher socket bound to cbc(aes), the name OpenSSL's afalg engine binds (it implements
//     AES-CBC only; its other algorithms are OpenSSL's own code), one sendmsg and one read of the whole input;
//   - devcrypto: a /dev/crypto session of the algorithm, as the devcrypto engine opens, and one CIOCCRYPT of the
//     whole input (cryptodev-linux maps the user's pages and runs them as one kernel request).
// The kernel picks the driver by that name for the agent as for the engine. Vendor engines and providers, and
// every mode on the shell path (no agent on the board), have no such way: their inputs above the openssl chunk
// reach the path in chunks only, the cases say so (VerifyCase.Request), and the controller marks the points of
// those sizes unknown.

// directRequest sends in through mode's kernel driver for alg as one request: op is encrypt, decrypt (in taken
// as ciphertext) or digest. Key and IV are the verification's patterns.
type directRequest func(mode, alg, op string, in []byte) ([]byte, error)

// directVia names the one-piece way of mode and alg, "" when there is none.
func directVia(mode, alg string) string {
	switch mode {
	case protocol.ModeAFALG:
		if spec, ok := kcapiSpecOf(alg); ok && spec.Name == "cbc(aes)" {
			return "af_alg skcipher cbc(aes)"
		}
	case protocol.ModeDevCrypto:
		_, isCipher := protocol.VerifyCiphers[alg]
		_, isDigest := protocol.VerifyDigests[alg]
		if _, _, _, ok := cryptodevAlg(alg); ok && (isCipher || isDigest) {
			return "/dev/crypto " + alg
		}
	}
	return ""
}

// directCases sends each input above chunk through mode's one-piece way, both ways for a cipher; none when the
// mode has no such way or the verification runs on the shell path's board. chunk is what openssl hands the path
// at once, or 0 for every size: then an input that does not fill whole blocks is encrypted padded (PKCS#7, as
// EVP pads it) by the agent, one request of the padded length, since the kernel takes whole blocks only. Each
// request runs within what is left of the path's deadline d; past it the later ones are skipped.
func (s *sweepState) directCases(d *pathDeadline, mode, alg string, sizes []int, digest bool, block, chunk int) []protocol.VerifyCase {
	via := directVia(mode, alg)
	if via == "" || s.remote != nil {
		return nil
	}
	do := s.direct
	if do == nil {
		do = s.kernelRequest
	}
	ops := []string{"encrypt", "decrypt"}
	if digest {
		ops = []string{"digest"}
	}
	var cases []protocol.VerifyCase
	for _, op := range ops {
		for _, n := range sizes {
			padded := n%block != 0
			if n <= chunk || padded && (chunk > 0 || op != "encrypt") {
				continue
			}
			in := protocol.VerifyPattern(n, protocol.VerifySeedPayload)
			if padded {
				in = pkcs7Pad(in, block)
			}
			type answer struct {
				out []byte
				err error
			}
			a, err := within(d, func() answer {
				out, err := do(mode, alg, op, in)
				return answer{out, err}
			})
			out := a.out
			if err == nil {
				err = a.err
			}
			c := protocol.VerifyCase{Op: op, Size: n}
			if err != nil {
				c.Err = err.Error()
			} else {
				c = newVerifyCase(op, n, out)
			}
			c.Padded, c.Request, c.Via = padded, n, via // a padded input is whole in its one request too
			cases = append(cases, c)
		}
	}
	return cases
}

// pkcs7Pad is b padded to whole blocks as EVP pads an encryption: 1 to block bytes, each of their count.
func pkcs7Pad(b []byte, block int) []byte {
	n := block - len(b)%block
	out := append(slices.Clone(b), make([]byte, n)...)
	for i := len(b); i < len(out); i++ {
		out[i] = byte(n)
	}
	return out
}

// kernelRequest is the real directRequest: AF_ALG for afalg, /dev/crypto for devcrypto.
func (s *sweepState) kernelRequest(mode, alg, op string, in []byte) ([]byte, error) {
	if mode == protocol.ModeDevCrypto {
		return cryptodevRequest(s.root+"/dev/crypto", alg, op, in)
	}
	spec, _ := kcapiSpecOf(alg)
	conn, err := kcapiOpen(spec.Kind, spec.Name, protocol.VerifyPattern(spec.KeyLen, protocol.VerifySeedKey), 0)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	out := make([]byte, len(in))
	iv := protocol.VerifyPattern(spec.IVLen, protocol.VerifySeedIV)
	return out, conn.cipher(kcapiCipherControl(op == "decrypt", iv, false, 0), in, out)
}

// cryptOp is cryptodev's struct crypt_op (crypto/cryptodev.h, unchanged from 1.6 to 1.14): 28 bytes on armv7,
// 48 on arm64, as the C ABI lays it out and Go does too.
type cryptOp struct {
	Ses           uint32
	Op, Flags     uint16
	Len           uint32
	Src, Dst, Mac *byte
	IV            *byte
}

// cryptodevRequest runs in through a fresh cryptodev session of alg (dev is /dev/crypto) as one CIOCCRYPT.
func cryptodevRequest(dev, alg, op string, in []byte) ([]byte, error) {
	id, keyLen, mac, ok := cryptodevAlg(alg)
	if !ok || len(in) == 0 {
		return nil, fmt.Errorf("cryptodev has no id for %s", alg)
	}
	f, err := os.OpenFile(dev, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", dev, err)
	}
	defer f.Close()
	fd := f.Fd()
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, fd, req, uintptr(arg)); e != 0 {
			return e
		}
		return nil
	}
	key := protocol.VerifyPattern(max(keyLen, 1), protocol.VerifySeedKey)
	sess := sessionOp{}
	if mac {
		sess.Mac = id
	} else {
		sess.Cipher, sess.Keylen, sess.Key = id, uint32(keyLen), &key[0]
	}
	if err := ioctl(iowr('c', 102, unsafe.Sizeof(sess)), unsafe.Pointer(&sess)); err != nil {
		return nil, fmt.Errorf("CIOCGSESSION for %s: %w", alg, err)
	}
	defer func() { ses := sess.Ses; _ = ioctl(iowr('c', 103, 4)&^(2<<30), unsafe.Pointer(&ses)) }()
	c := cryptOp{Ses: sess.Ses, Len: uint32(len(in)), Src: &in[0]}
	var out, iv []byte
	if mac {
		out = make([]byte, protocol.VerifyDigests[alg])
		c.Mac = &out[0]
	} else {
		out = make([]byte, len(in))
		c.Dst = &out[0]
		if n := protocol.VerifyCiphers[alg].IVLen; n > 0 {
			iv = protocol.VerifyPattern(n, protocol.VerifySeedIV)
			c.IV = &iv[0]
		}
		if op == "decrypt" {
			c.Op = 1 // COP_DECRYPT
		}
	}
	err = ioctl(iowr('c', 104, unsafe.Sizeof(c)), unsafe.Pointer(&c))
	runtime.KeepAlive(in)
	runtime.KeepAlive(iv)
	runtime.KeepAlive(key)
	if err != nil {
		return nil, fmt.Errorf("CIOCCRYPT %s %d B: %w", strings.TrimSpace(alg), len(in), err)
	}
	return out, nil
}
