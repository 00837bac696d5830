//go:build !linux

package store

// diskFull cannot tell on this platform; the SQLite error stands as it is.
func diskFull(path string) bool { return false }
