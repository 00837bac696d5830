package main

import "strings"

// shellWords splits a command line the way the controller writes them (fleet/transport_ssh_run.go commandLine: every
// argument single-quoted, each quote inside written as close quote, backslash, quote, open quote), enough to
// dispatch on it without a shell.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(line[i+1])
			i++
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// withoutEnv drops a leading "env NAME=value ..." prefix.
func withoutEnv(words []string) []string {
	if len(words) == 0 || words[0] != "env" {
		return words
	}
	words = words[1:]
	for len(words) > 0 && strings.Contains(words[0], "=") {
		words = words[1:]
	}
	return words
}
