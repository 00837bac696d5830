package agent

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/fleetlab/fleet/protocol"
	"golang.org/x/sys/unix"
)

// cryptodev-linux says which kernel driver serves a session (CIOCGSESSINFO): for mode devcrypto the agent opens
// a session for the point's algorithm, as OpenSSL's devcrypto engine does, and stores that driver with the point
// instead of the one /proc/crypto's priorities suggest. The layouts are crypto/cryptodev.h's, the same in every
// release from 1.6 to 1.14 (no compression fields: those lived on an unreleased branch). The ioctl numbers encode
// the struct sizes, which follow the C ABI of the agent's architecture: CIOCGSESSION is 48 bytes on arm64 and 28
// on armv7, CIOCGSESSINFO 268 on both. A module that answers otherwise leaves the point's driver /proc/crypto's
// guess, flagged.

// cryptodev algorithm ids (enum cryptodev_crypto_op_t).
const (
	cryptoDES3CBC  = 2
	cryptoMD5      = 13
	cryptoSHA1     = 14
	cryptoAESCBC   = 11
	cryptoAESCTR   = 21
	cryptoAESXTS   = 22
	cryptoAESECB   = 23
	cryptoAESGCM   = 50
	cryptoSHA2_224 = 103
	cryptoSHA2_256 = 104
	cryptoSHA2_384 = 105
	cryptoSHA2_512 = 106
)

const cryptodevMaxAlgName = 64

type cryptodevAlgInfo struct {
	Name       [cryptodevMaxAlgName]byte
	DriverName [cryptodevMaxAlgName]byte
}

// session_op and session_info_op.
type sessionOp struct {
	Cipher, Mac uint32
	Keylen      uint32
	Key         *byte
	Mackeylen   uint32
	Mackey      *byte
	Ses         uint32
}

type sessionInfoOp struct {
	Ses                  uint32
	CipherInfo, HashInfo cryptodevAlgInfo
	Alignmask            uint16
	Flags                uint32
}

// iowr is Linux's generic _IOWR(type, nr, size) (arm, arm64, x86).
func iowr(typ, nr byte, size uintptr) uintptr {
	return 3<<30 | size<<16 | uintptr(typ)<<8 | uintptr(nr)
}

// cryptodevAlg maps a canonical algorithm to cryptodev's id and key length; mac is true for a digest.
func cryptodevAlg(alg string) (id uint32, keyLen int, mac bool, ok bool) {
	switch alg {
	case "des-ede3-cbc":
		return cryptoDES3CBC, 24, false, true
	case "md5":
		return cryptoMD5, 0, true, true
	case "sha1":
		return cryptoSHA1, 0, true, true
	case "sha224":
		return cryptoSHA2_224, 0, true, true
	case "sha256":
		return cryptoSHA2_256, 0, true, true
	case "sha384":
		return cryptoSHA2_384, 0, true, true
	case "sha512":
		return cryptoSHA2_512, 0, true, true
	}
	var bits int
	mode, ok := "", false
	for _, k := range []int{128, 192, 256} {
		if rest, found := strings.CutPrefix(alg, "aes-"+strconv.Itoa(k)+"-"); found {
			bits, mode, ok = k, rest, true
		}
	}
	if !ok {
		return 0, 0, false, false
	}
	switch mode {
	case "cbc":
		id = cryptoAESCBC
	case "ctr":
		id = cryptoAESCTR
	case "ecb":
		id = cryptoAESECB
	case "gcm":
		id = cryptoAESGCM
	case "xts":
		return cryptoAESXTS, bits / 4, false, true
	default:
		return 0, 0, false, false
	}
	return id, bits / 8, false, true
}

// siopFlagKernelDriverOnly is SIOP_FLAG_KERNEL_DRIVER_ONLY: cryptodev sets it in session_info_op.flags when the
// driver is one only the kernel can reach (CRYPTO_ALG_KERN_DRIVER_ONLY, a hardware engine's); a software or
// CPU-instruction driver (cbc-aes-ce, sha256-ce) lacks it.
const siopFlagKernelDriverOnly = 1

// devcryptoSession is what cryptodev says of a session: the driver that serves it and whether it is a
// kernel-driver-only (hardware) one. OpenSSL's devcrypto engine (1.1.1 and 3.x) uses a driver without the flag
// only when its USE_SOFTDRIVERS control is 1; its default, 2, leaves such an algorithm to OpenSSL's own code.
type devcryptoSession struct {
	Driver     string
	KernelOnly bool
}

// devcryptoDriver asks cryptodev (dev is /dev/crypto) which driver serves a session of alg.
func devcryptoDriver(dev, alg string) (devcryptoSession, error) {
	var none devcryptoSession
	id, keyLen, mac, ok := cryptodevAlg(alg)
	if !ok {
		return none, fmt.Errorf("cryptodev has no id for %s", alg)
	}
	f, err := os.OpenFile(dev, os.O_RDWR, 0)
	if err != nil {
		return none, fmt.Errorf("open %s: %w", dev, err)
	}
	defer f.Close()
	fd := f.Fd()
	key := make([]byte, max(keyLen, 1))
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, fd, req, uintptr(arg)); e != 0 {
			return e
		}
		return nil
	}
	end := func(ses uint32) { _ = ioctl(iowr('c', 103, 4)&^(2<<30), unsafe.Pointer(&ses)) } // CIOCFSESSION is _IOW

	s := sessionOp{}
	if mac {
		s.Mac = id
	} else {
		s.Cipher, s.Keylen, s.Key = id, uint32(keyLen), &key[0]
	}
	if err := ioctl(iowr('c', 102, unsafe.Sizeof(s)), unsafe.Pointer(&s)); err != nil {
		if errors.Is(err, unix.ENOTTY) {
			return none, fmt.Errorf("CIOCGSESSION for %s: %w (not cryptodev-linux's ioctl numbers)", alg, err)
		}
		return none, fmt.Errorf("CIOCGSESSION for %s: %w", alg, err)
	}
	defer end(s.Ses)
	info := sessionInfoOp{Ses: s.Ses}
	if err := ioctl(iowr('c', 107, unsafe.Sizeof(info)), unsafe.Pointer(&info)); err != nil {
		return none, fmt.Errorf("CIOCGSESSINFO for %s: %w", alg, err)
	}
	return devcryptoSession{Driver: sessionDriver(info.CipherInfo, info.HashInfo, mac),
		KernelOnly: info.Flags&siopFlagKernelDriverOnly != 0}, nil
}

func sessionDriver(cipher, hash cryptodevAlgInfo, mac bool) string {
	a := cipher
	if mac {
		a = hash
	}
	name, _, _ := bytes.Cut(a.DriverName[:], []byte{0})
	d, _ := protocol.CutKernelText(string(name))
	return d
}
