//go:build !unix

package store

// writable cannot tell on this platform; the SQLite error stands as it is.
func writable(path string) bool { return true }
