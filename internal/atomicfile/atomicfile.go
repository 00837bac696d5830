package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// DefaultPerm is the mode of a new file (an existing file keeps its own).
const DefaultPerm fs.FileMode = 0o644

// file is what Write needs of an *os.File; tests substitute one whose Sync or Close fails.
type file interface {
	io.Writer
	Name() string
	Sync() error
	Close() error
}

var _ file = (*os.File)(nil)

// Write creates or replaces path with what write writes, atomically: into a temporary file beside path, synced,
// closed, given path's mode (DefaultPerm for a new file) and renamed over path. Any error — from write, a full
// disk, Sync, Close or the rename — leaves path as it was and removes the temporary file. A symbolic link is
// followed (its target is replaced, not the link). A destination that is not a regular file, such as
// /dev/stdout or a FIFO, cannot be replaced and is written directly.
func Write(path string, write func(w io.Writer) error) error {
	return writeWith(path, write, func(dir, pattern string) (file, error) { return os.CreateTemp(dir, pattern) })
}

func writeWith(path string, write func(w io.Writer) error, createTemp func(dir, pattern string) (file, error)) (err error) {
	target, perm, special, err := destination(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if special {
		return writeSpecial(target, write)
	}
	dir := filepath.Dir(target)
	f, err := createTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				f.Close()
			}
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Without the sync a crash after the rename could leave an empty file where the old one was.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	closed = true
	// Some file systems (NFS, FUSE) report a failed write only on close.
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: close: %w", path, err)
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The rename is durable only once the directory is; a failure here means it may not survive a crash.
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("write %s: sync directory: %w", path, err)
	}
	return nil
}

// destination resolves path to the file to replace, its mode, and whether it is something other than a regular
// file (which cannot be replaced by a rename).
func destination(path string) (target string, perm fs.FileMode, special bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, DefaultPerm, false, nil
	}
	if err != nil {
		return "", 0, false, err
	}
	if fi.IsDir() {
		return "", 0, false, errors.New("is a directory")
	}
	if !fi.Mode().IsRegular() {
		return path, 0, true, nil
	}
	target, err = filepath.EvalSymlinks(path)
	if err != nil {
		return "", 0, false, err
	}
	return target, fi.Mode().Perm(), false, nil
}

// writeSpecial writes to a device or FIFO in place: there is nothing to keep intact, but errors still count.
func writeSpecial(path string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	werr := write(f)
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr != nil {
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems cannot sync a directory at all; the rename is all they offer.
	if errors.Is(err, errors.ErrUnsupported) || errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}
