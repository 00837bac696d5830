//go:build !long

package e2e

// longCases: without -tags long the long cases skip, so that a plain `go test ./...` ends within go test's
// default 10 minutes on 2 busy cores (long_test.go says which and why).
const longCases = false
