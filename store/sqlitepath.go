package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkSQLitePath refuses a SQLite path that cannot be a database file before SQLite tries it: SQLite says
// only "unable to open database file (14)" for a directory, a missing directory or a parent that is a file.
// A missing file in an existing directory is fine (Open creates it).
func checkSQLitePath(path string) error {
	fi, errStat := os.Stat(path)
	if errStat == nil {
		if fi.IsDir() {
			return fmt.Errorf("%w: %s is a directory, not a database file (name a file in it, such as %s)",
				ErrCannotOpen, path, filepath.Join(path, "fleet.db"))
		}
		return nil
	}
	dir := filepath.Dir(path)
	switch di, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: directory %s does not exist (create it first: mkdir -p %s)", ErrCannotOpen, dir, dir)
	case err == nil && !di.IsDir():
		return fmt.Errorf("%w: %s is not a directory, so %s cannot be created in it", ErrCannotOpen, dir, path)
	case err != nil:
		return fmt.Errorf("%w: %w", ErrCannotOpen, err)
	}
	if !errors.Is(errStat, fs.ErrNotExist) {
		return fmt.Errorf("%w: %w", ErrCannotOpen, errStat)
	}
	return nil
}

// RemoveSQLite removes the SQLite file at path with its -wal, -shm and -journal files: for a caller that
// created the file and failed before storing anything in it, so that no empty database is left behind.
func RemoveSQLite(path string) error {
	var errs []error
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
