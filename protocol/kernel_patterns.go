package protocol

import (
	"fmt"
	"strings"
)

// The patterns live here, not in the controller, so that the agent can match every kernel line it reads on the
// board: a driver that floods its log and then oopses must not have its Oops dropped by a cap before anything
// looked at it. The controller names the lines it receives with the same matcher, so both sides agree.

// KernelPattern is one kind of kernel line that says something went wrong while a sweep ran.
type KernelPattern struct {
	Name  string   // the default's name ("oops"), or a board's regexp itself
	Fatal bool     // the kernel itself failed (Oops, BUG, panic): the board run fails with the line as the cause
	re    *Pattern // the subset of Go's regexp syntax that Pattern reads (pattern_parse.go), as on the board
	// guard are lower-case strings of which a line must contain one for re to match it (none: re always runs).
	// The agent matches every line of a flood on the board, and an unanchored regexp costs a microsecond or more
	// per line where a substring test costs nanoseconds; TestDefaultKernelPatterns holds them to the regexps.
	guard []string
}

// defaultKernelPatterns are matched against every kernel line that appears during a sweep, in this order; the
// first that matches names the line. They are written from real kernels' messages: arm64 and ARM print
// "Internal error: Oops: 96000005 [#1] SMP", x86 "Oops: 0002 [#1] PREEMPT SMP"; testmgr prints "alg: skcipher:
// ctr-aes-caam encryption test failed (wrong output IV) on test vector 0" and "alg: self-tests for cbc-aes-sa2ul
// using cbc(aes) failed (rc=-22)"; CAAM's job ring prints "caam_jr 8020000.jr: 40000010: DECO: desc idx 0: …".
// "alg: No test for …" is not a failure and matches none.
var defaultKernelPatterns = []KernelPattern{
	{"oops", true, MustPattern(`\bOops\b|^Unable to handle kernel (NULL pointer dereference|paging request)`), []string{"oops", "unable to handle kernel "}},
	{"bug", true, MustPattern(`^BUG: |\bkernel BUG at `), []string{"bug: ", "kernel bug at "}},
	{"panic", true, MustPattern(`^Kernel panic - not syncing`), nil},
	{"warning", false, MustPattern(`^WARNING: (CPU: \d+ PID: \d+ at |at )`), nil},
	{"self-test", false, MustPattern(`(?i)\bself-?tests? .*\bfail|^alg: .*\b(test|tests) failed|^alg: .*\bfailed\b`), []string{"self", "alg: "}},
	{"lockup", false, MustPattern(`soft lockup - CPU#\d+ stuck|blocked for more than \d+ seconds|rcu: INFO: rcu_\w+ (self-)?detected stall`),
		[]string{"soft lockup", "blocked for more than", "rcu: info"}},
	{"caam", false, MustPattern(`^caam(_jr)? \S+: ([0-9a-f]{8}: |.*\b(error|failed|timed? ?out)\b)`), nil},
	{"sa2ul", false, MustPattern(`(?i)^sa2ul \S+: .*(\b(error|fail(ed)?|timeout)\b|couldn't be loaded|bad digest_size)`), nil},
	{"talitos", false, MustPattern(`(?i)^talitos \S+: .*\b(error|fail(ed)?|timeout|overflow)\b`), nil},
	{"cesa", false, MustPattern(`(?i)^marvell-cesa \S+: .*\b(error|fail(ed)?|timeout)\b`), nil},
	{"crypto-driver", false, MustPattern(`(?i)^(omap-aes|omap-sham|atmel-aes|atmel-sha|stm32-cryp|sun8i-ce|sun4i-ss|rk-crypto|rockchip-crypto|mxs-dcp|sahara|virtio_crypto)\S* \S+: .*\b(error|fail(ed)?|timeout|timed out)\b`),
		[]string{"error", "fail", "timeout", "timed out"}},
}

// KernelMatcher matches kernel lines against the defaults and a board's own patterns (Plan.KernelPatterns).
type KernelMatcher struct {
	patterns []KernelPattern
}

// NewKernelMatcher adds a board's patterns after the defaults; each is named by itself. A pattern that does not
// compile is left out and named in the error (inventory checks them when boards.toml loads, so only a plan
// written by something else has one); the matcher returned has the others.
func NewKernelMatcher(board []string) (KernelMatcher, error) {
	m := KernelMatcher{patterns: defaultKernelPatterns}
	if len(board) == 0 {
		return m, nil
	}
	m.patterns = append([]KernelPattern(nil), defaultKernelPatterns...)
	var bad []string
	for _, p := range board {
		re, err := CompilePattern(p)
		if err != nil || re.MatchString("") {
			bad = append(bad, fmt.Sprintf("%q", p))
			continue
		}
		m.patterns = append(m.patterns, KernelPattern{Name: p, re: re})
	}
	if len(bad) > 0 {
		return m, fmt.Errorf("kernel log patterns %s: not regular expressions that match some line, left out", strings.Join(bad, ", "))
	}
	return m, nil
}

// Match returns the first pattern that matches text, if any. The zero KernelMatcher has the defaults.
func (m KernelMatcher) Match(text string) (KernelPattern, bool) {
	text = strings.TrimSpace(text)
	patterns := m.patterns
	if patterns == nil {
		patterns = defaultKernelPatterns
	}
	lower := ""
	for _, p := range patterns {
		if len(p.guard) > 0 {
			if lower == "" {
				lower = strings.ToLower(text)
			}
			if !containsAny(lower, p.guard) {
				continue
			}
		}
		if p.re.MatchString(text) {
			return p, true
		}
	}
	return KernelPattern{}, false
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
