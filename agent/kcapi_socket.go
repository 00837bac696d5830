//go:build linux

package agent

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kcapiConn is one AF_ALG transform: the bound socket (holding the key) and one operation socket.
type kcapiConn struct {
	tfm, op int
	kind    string // skcipher, aead, hash
	name    string
}

// kcapiSocketWorks checks that the kernel crypto API is usable: an AF_ALG socket bound to skcipher cbc(aes),
// keyed, and an operation socket accepted from it.
func kcapiSocketWorks() error {
	fd, err := unix.Socket(unix.AF_ALG, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	unix.Close(fd)
	c, err := kcapiOpen("skcipher", "cbc(aes)", make([]byte, 16), 0)
	if err != nil {
		return err
	}
	c.Close()
	return nil
}

// kcapiOpen binds an AF_ALG socket to kind/name, sets the key (and the AEAD tag size) and accepts an operation
// socket.
func kcapiOpen(kind, name string, key []byte, authSize int) (*kcapiConn, error) {
	fd, err := unix.Socket(unix.AF_ALG, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("af_alg socket: %w", err)
	}
	c := &kcapiConn{tfm: fd, op: -1, kind: kind, name: name}
	if err := unix.Bind(fd, &unix.SockaddrALG{Type: kind, Name: name}); err != nil {
		c.Close()
		return nil, fmt.Errorf("af_alg bind %s %s: %w", kind, name, err)
	}
	if len(key) > 0 {
		if err := unix.SetsockoptString(fd, unix.SOL_ALG, unix.ALG_SET_KEY, string(key)); err != nil {
			c.Close()
			return nil, fmt.Errorf("af_alg set key %s: %w", name, err)
		}
	}
	if authSize > 0 {
		// the kernel reads the tag size from optlen and ignores the buffer
		if err := unix.SetsockoptString(fd, unix.SOL_ALG, unix.ALG_SET_AEAD_AUTHSIZE, string(make([]byte, authSize))); err != nil {
			c.Close()
			return nil, fmt.Errorf("af_alg set tag size %s: %w", name, err)
		}
	}
	// unix.Accept cannot decode an AF_ALG peer address, so accept with a nil address by hand
	op, _, errno := unix.Syscall6(unix.SYS_ACCEPT4, uintptr(fd), 0, 0, unix.SOCK_CLOEXEC, 0, 0)
	if errno != 0 {
		c.Close()
		return nil, fmt.Errorf("af_alg accept %s: %w", name, errno)
	}
	c.op = int(op)
	return c, nil
}

// Close releases both sockets.
func (c *kcapiConn) Close() {
	if c.op >= 0 {
		unix.Close(c.op)
		c.op = -1
	}
	if c.tfm >= 0 {
		unix.Close(c.tfm)
		c.tfm = -1
	}
}

// kcapiCmsg builds one SOL_ALG control message.
func kcapiCmsg(typ int, data []byte) []byte {
	b := make([]byte, unix.CmsgSpace(len(data)))
	h := (*unix.Cmsghdr)(unsafe.Pointer(&b[0]))
	h.Level = unix.SOL_ALG
	h.Type = int32(typ)
	h.SetLen(unix.CmsgLen(len(data)))
	copy(b[unix.CmsgLen(0):], data)
	return b
}

// kcapiCipherControl is the control data of a cipher operation: direction, IV and, for AEAD, the AAD length.
func kcapiCipherControl(decrypt bool, iv []byte, aead bool, assocLen int) []byte {
	u32 := func(v uint32) []byte { b := make([]byte, 4); binary.NativeEndian.PutUint32(b, v); return b }
	op := uint32(unix.ALG_OP_ENCRYPT)
	if decrypt {
		op = unix.ALG_OP_DECRYPT
	}
	oob := kcapiCmsg(unix.ALG_SET_OP, u32(op))
	if len(iv) > 0 {
		oob = append(oob, kcapiCmsg(unix.ALG_SET_IV, append(u32(uint32(len(iv))), iv...))...)
	}
	if aead {
		oob = append(oob, kcapiCmsg(unix.ALG_SET_AEAD_ASSOCLEN, u32(uint32(assocLen)))...)
	}
	return oob
}

// The operations below issue their system calls with RawSyscall, not telling the Go scheduler: each call is
// short, and the scheduler's hand-off of the processor around every blocking call (sysmon then polls every
// 20 µs) shows as CPU load on other cores, polluting the system-wide busy figure that is the evidence of
// accelerator work. Measured under QEMU arm64: 90 % busy of 2 cores with Syscall, 50 % with RawSyscall.

// cipher runs one cipher operation: in is sent with the control data oob, out is filled with the result.
func (c *kcapiConn) cipher(oob, in, out []byte) error {
	var iov unix.Iovec
	if len(in) > 0 {
		iov.Base = &in[0]
	}
	iov.SetLen(len(in))
	msg := unix.Msghdr{Iov: &iov}
	msg.SetIovlen(1)
	if len(oob) > 0 {
		msg.Control = &oob[0]
		msg.SetControllen(len(oob))
	}
	var n uintptr
	var errno unix.Errno
	for {
		n, _, errno = unix.RawSyscall(unix.SYS_SENDMSG, uintptr(c.op), uintptr(unsafe.Pointer(&msg)), 0)
		if errno != unix.EINTR {
			break
		}
	}
	runtime.KeepAlive(in)
	runtime.KeepAlive(oob)
	if errno != 0 {
		return fmt.Errorf("af_alg send %s: %w", c.name, errno)
	}
	if int(n) != len(in) {
		return fmt.Errorf("af_alg send %s: sent %d of %d bytes", c.name, n, len(in))
	}
	return c.readFull(out)
}

// hash runs one digest over in and reads the digest into out.
func (c *kcapiConn) hash(in, out []byte) error {
	for len(in) > 0 {
		n, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(c.op), uintptr(unsafe.Pointer(&in[0])), uintptr(len(in)))
		runtime.KeepAlive(in)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return fmt.Errorf("af_alg write %s: %w", c.name, errno)
		}
		in = in[n:]
	}
	return c.readFull(out)
}

func (c *kcapiConn) readFull(out []byte) error {
	for got := 0; got < len(out); {
		n, _, errno := unix.RawSyscall(unix.SYS_READ, uintptr(c.op), uintptr(unsafe.Pointer(&out[got])), uintptr(len(out)-got))
		runtime.KeepAlive(out)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return fmt.Errorf("af_alg read %s: %w", c.name, errno)
		}
		if n == 0 {
			return fmt.Errorf("af_alg read %s: short result, %d of %d bytes", c.name, got, len(out))
		}
		got += int(n)
	}
	return nil
}
