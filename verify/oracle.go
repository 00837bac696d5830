package verify

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"fmt"
	"hash"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// Expected is the output a correct path gives for one case of alg, or an error when this package has no oracle
// for it.
func Expected(alg string, c protocol.VerifyCase) ([]byte, error) {
	payload := protocol.VerifyPattern(c.Size, protocol.VerifySeedPayload)
	if h := newHash(alg); h != nil {
		if c.Op != "digest" {
			return nil, fmt.Errorf("%s has no %s", alg, c.Op)
		}
		h.Write(payload)
		return h.Sum(nil), nil
	}
	if strings.HasSuffix(alg, "-gcm") {
		return gcm(alg, c.Op, payload)
	}
	spec, ok := protocol.VerifyCiphers[alg]
	if !ok {
		return nil, fmt.Errorf("no oracle for %s", alg)
	}
	key := protocol.VerifyPattern(spec.KeyLen, protocol.VerifySeedKey)
	iv := protocol.VerifyPattern(spec.IVLen, protocol.VerifySeedIV)
	var block cipher.Block
	var err error
	if strings.HasPrefix(alg, "des-ede3") {
		block, err = des.NewTripleDESCipher(key)
	} else {
		block, err = aes.NewCipher(key)
	}
	if err != nil {
		return nil, fmt.Errorf("oracle %s: %w", alg, err)
	}
	in := payload
	switch c.Op {
	case "encrypt":
		if c.Padded {
			in = pkcs7(in, block.BlockSize())
		}
	case "decrypt":
		if c.Padded {
			return nil, fmt.Errorf("a padded decryption of the pattern is not defined")
		}
	default:
		return nil, fmt.Errorf("%s has no %s", alg, c.Op)
	}
	decrypt := c.Op == "decrypt"
	out := make([]byte, len(in))
	switch {
	case strings.HasSuffix(alg, "-ctr"):
		cipher.NewCTR(block, iv).XORKeyStream(out, in)
		return out, nil
	case len(in)%block.BlockSize() != 0:
		return nil, fmt.Errorf("%s takes whole %d-byte blocks, not %d bytes", alg, block.BlockSize(), len(in))
	case strings.HasSuffix(alg, "-cbc") && decrypt:
		cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, in)
	case strings.HasSuffix(alg, "-cbc"):
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, in)
	case strings.HasSuffix(alg, "-ecb"):
		bs := block.BlockSize()
		for i := 0; i < len(in); i += bs {
			if decrypt {
				block.Decrypt(out[i:i+bs], in[i:i+bs])
			} else {
				block.Encrypt(out[i:i+bs], in[i:i+bs])
			}
		}
	default:
		return nil, fmt.Errorf("no oracle for %s", alg)
	}
	return out, nil
}

// gcm is AES-GCM with a 12-byte IV and no associated data: "encrypt" gives the ciphertext and its 16-byte tag,
// "open" (the path's own sealing opened again by the path) the payload.
func gcm(alg, op string, payload []byte) ([]byte, error) {
	bits := map[string]int{"aes-128-gcm": 16, "aes-192-gcm": 24, "aes-256-gcm": 32}[alg]
	if bits == 0 {
		return nil, fmt.Errorf("no oracle for %s", alg)
	}
	block, err := aes.NewCipher(protocol.VerifyPattern(bits, protocol.VerifySeedKey))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	switch op {
	case "encrypt":
		return aead.Seal(nil, protocol.VerifyPattern(12, protocol.VerifySeedIV), payload, nil), nil
	case "open":
		return payload, nil
	}
	return nil, fmt.Errorf("%s has no %s", alg, op)
}

func newHash(alg string) hash.Hash {
	switch alg {
	case "md5":
		return md5.New()
	case "sha1":
		return sha1.New()
	case "sha224":
		return sha256.New224()
	case "sha256":
		return sha256.New()
	case "sha384":
		return sha512.New384()
	case "sha512":
		return sha512.New()
	case "sha3-256":
		return sha3.New256()
	case "sha3-512":
		return sha3.New512()
	}
	return nil
}

// pkcs7 pads b to whole blocks as OpenSSL does: n bytes of value n, a whole block when b fills its last one.
func pkcs7(b []byte, bs int) []byte {
	n := bs - len(b)%bs
	out := make([]byte, len(b), len(b)+n)
	copy(out, b)
	for range n {
		out = append(out, byte(n))
	}
	return out
}
