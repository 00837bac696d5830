package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenNamesWhyAPathIsNoDatabase: a directory, a missing directory or a file where a directory should be
// are refused before SQLite, whose only word for them is "unable to open database file (14)", with what is
// wrong and nothing created.
func TestOpenNamesWhyAPathIsNoDatabase(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
		readOnly   bool
	}{
		{dir, dir + " is a directory, not a database file (name a file in it, such as " + filepath.Join(dir, "fleet.db") + ")", false},
		{dir, dir + " is a directory, not a database file", true},
		{filepath.Join(dir, "nosuch", "fleet.db"), "directory " + filepath.Join(dir, "nosuch") + " does not exist", false},
		{filepath.Join(file, "fleet.db"), file + " is not a directory", false},
	} {
		open := Open
		if tc.readOnly {
			open = OpenReadOnly
		}
		db, err := open(context.Background(), tc.path)
		if err == nil {
			db.Close()
			t.Errorf("Open(%s) (read-only %v) succeeded", tc.path, tc.readOnly)
			continue
		}
		if !errors.Is(err, ErrCannotOpen) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "(14)") {
			t.Errorf("Open(%s) (read-only %v) = %v, want ErrCannotOpen saying %q", tc.path, tc.readOnly, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nosuch")); err == nil {
		t.Error("the missing directory was created")
	}
}
