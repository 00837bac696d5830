//go:build long

package e2e

// longCases: built with -tags long (test.sh's stages), the long cases run.
const longCases = true
