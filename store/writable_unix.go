//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// writable reports whether the database file (if it exists) and its directory can be written, as the kernel
// sees it: a read-only file system or an immutable file says no even to root.
func writable(path string) bool {
	const wOK = 2 // W_OK
	if _, err := os.Stat(path); err == nil {
		if err := syscall.Access(path, wOK); err != nil {
			return false
		}
	}
	err := syscall.Access(filepath.Dir(path), wOK)
	return err == nil || errors.Is(err, syscall.ENOENT)
}
