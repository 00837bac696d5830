package transport

import "strings"

// Quote makes s one word for a POSIX shell: inside single quotes nothing is special, and each single quote in s
// is written as close quote, backslash, quote, open quote. It is here, not in the SSH transport, because every
// command line a board's shell reads is quoted with it: the SSH transport's, the shell path's scripts and mode
// ssh's transfer commands.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
