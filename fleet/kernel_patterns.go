package fleet

import (
	"regexp"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// kernelPattern is one kind of kernel line that says something went wrong while a sweep ran.
type kernelPattern struct {
	name  string
	re    *regexp.Regexp
	fatal bool // the kernel itself failed (Oops, BUG, panic): the board run fails with the line as the cause
}

// defaultKernelPatterns are matched against every kernel line that appears during a sweep, in this order; the
// first that matches names the line. They are written from real kernels' messages: arm64 and ARM print
// "Internal error: Oops: 96000005 [#1] SMP", x86 "Oops: 0002 [#1] PREEMPT SMP"; testmgr prints "alg: skcipher:
// ctr-aes-caam encryption test failed (wrong output IV) on test vector 0" and "alg: self-tests for cbc-aes-sa2ul
// using cbc(aes) failed (rc=-22)"; CAAM's job ring prints "caam_jr 8020000.jr: 40000010: DECO: desc idx 0: …".
// "alg: No test for …" is not a failure and matches none.
var defaultKernelPatterns = []kernelPattern{
	{"oops", regexp.MustCompile(`\bOops\b|^Unable to handle kernel (NULL pointer dereference|paging request)`), true},
	{"bug", regexp.MustCompile(`^BUG: |\bkernel BUG at `), true},
	{"panic", regexp.MustCompile(`^Kernel panic - not syncing`), true},
	{"warning", regexp.MustCompile(`^WARNING: (CPU: \d+ PID: \d+ at |at )`), false},
	{"self-test", regexp.MustCompile(`(?i)\bself-?tests? .*\bfail|^alg: .*\b(test|tests) failed|^alg: .*\bfailed\b`), false},
	{"lockup", regexp.MustCompile(`soft lockup - CPU#\d+ stuck|blocked for more than \d+ seconds|rcu: INFO: rcu_\w+ (self-)?detected stall`), false},
	{"caam", regexp.MustCompile(`^caam(_jr)? \S+: ([0-9a-f]{8}: |.*\b(error|failed|timed? ?out)\b)`), false},
	{"sa2ul", regexp.MustCompile(`(?i)^sa2ul \S+: .*(\b(error|fail(ed)?|timeout)\b|couldn't be loaded|bad digest_size)`), false},
	{"talitos", regexp.MustCompile(`(?i)^talitos \S+: .*\b(error|fail(ed)?|timeout|overflow)\b`), false},
	{"cesa", regexp.MustCompile(`(?i)^marvell-cesa \S+: .*\b(error|fail(ed)?|timeout)\b`), false},
	{"crypto-driver", regexp.MustCompile(`(?i)^(omap-aes|omap-sham|atmel-aes|atmel-sha|stm32-cryp|sun8i-ce|sun4i-ss|rk-crypto|rockchip-crypto|mxs-dcp|sahara|virtio_crypto)\S* \S+: .*\b(error|fail(ed)?|timeout|timed out)\b`), false},
}

// kernelMatcher matches lines against the defaults and a board's own patterns.
type kernelMatcher struct {
	patterns []kernelPattern
}

// newKernelMatcher adds a board's patterns (validated by inventory) after the defaults; each is named by itself.
func newKernelMatcher(board []string) kernelMatcher {
	m := kernelMatcher{patterns: defaultKernelPatterns}
	if len(board) > 0 {
		m.patterns = append([]kernelPattern(nil), defaultKernelPatterns...)
		for _, p := range board {
			if re, err := regexp.Compile(p); err == nil {
				m.patterns = append(m.patterns, kernelPattern{name: p, re: re})
			}
		}
	}
	return m
}

// match returns the pattern that matches text, if any.
func (m kernelMatcher) match(text string) (kernelPattern, bool) {
	text = strings.TrimSpace(text)
	for _, p := range m.patterns {
		if p.re.MatchString(text) {
			return p, true
		}
	}
	return kernelPattern{}, false
}

// matchLines returns the lines of ls that match, each with the point measured when it appeared.
func (m kernelMatcher) matchLines(ls []protocol.KernelLine, during string) []protocol.HealthLine {
	var out []protocol.HealthLine
	for _, l := range ls {
		if p, ok := m.match(l.Text); ok {
			out = append(out, protocol.HealthLine{Text: l.Text, Pattern: p.name, Fatal: p.fatal, During: during})
		}
	}
	return out
}
