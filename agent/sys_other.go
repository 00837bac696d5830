//go:build !linux

package agent

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// The agent runs on Linux boards. These stand-ins let the controller, which imports the agent's protocol types,
// build on other Unix systems (a developer's macOS): there the kcapi mode is unavailable and CPU time is the
// process's.

const rusageThread = unix.RUSAGE_SELF

func childSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

var errNoKcapi = errors.New("the kernel crypto API (AF_ALG) is Linux only")

type kcapiConn struct{}

func kcapiSocketWorks() error { return errNoKcapi }

func kcapiOpen(kind, name string, key []byte, authSize int) (*kcapiConn, error) {
	return nil, errNoKcapi
}

func kcapiCipherControl(decrypt bool, iv []byte, aead bool, assocLen int) []byte { return nil }

func (c *kcapiConn) Close() {}

func (c *kcapiConn) cipher(oob, in, out []byte) error { return errNoKcapi }

func (c *kcapiConn) hash(in, out []byte) error { return errNoKcapi }

// statStamp is a file's size and mtime (the Linux one adds inode, devices and ctime).
func statStamp(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano()), nil
}
