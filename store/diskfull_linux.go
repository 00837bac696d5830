package store

import (
	"path/filepath"
	"syscall"
)

// diskFull reports whether the file system holding path has (almost) no space left for unprivileged writes.
func diskFull(path string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &st); err != nil {
		return false
	}
	return uint64(st.Bavail)*uint64(st.Bsize) < 64<<10
}
