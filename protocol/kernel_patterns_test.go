package protocol

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDefaultKernelPatterns matches the default patterns against kernel log excerpts, each line with the pattern
// that must name it ("-": none may).
func TestDefaultKernelPatterns(t *testing.T) {
	files, err := filepath.Glob("testdata/kernel/*.tsv")
	if err != nil || len(files) == 0 {
		t.Fatalf("no excerpts: %v", err)
	}
	for _, m := range []KernelMatcher{{}, mustMatcher(t, nil)} { // the zero matcher has the defaults too
		for _, file := range files {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(f)
			n := 0
			for sc.Scan() {
				n++
				want, line, ok := strings.Cut(sc.Text(), "\t")
				if !ok || strings.HasPrefix(want, "#") {
					continue
				}
				if p := guardMisses(line); p != "" {
					t.Errorf("%s:%d: %q matches %s's regexp but not its guard", file, n, line, p)
				}
				p, matched := m.Match(line)
				got := "-"
				if matched {
					got = p.Name
				}
				if got != want {
					t.Errorf("%s:%d: %q matched %q, want %q", file, n, line, got, want)
				}
				if fatal := slices.Contains([]string{"oops", "bug", "panic"}, want); matched && p.Fatal != fatal {
					t.Errorf("%s:%d: %s fatal = %v, want %v", file, n, want, p.Fatal, fatal)
				}
			}
			f.Close()
		}
	}
}

// TestKernelMatcherBoard: a board's patterns come after the defaults, named by themselves; one that does not
// compile, or matches every line, is left out and named in the error, and the others still match.
func TestKernelMatcherBoard(t *testing.T) {
	m := mustMatcher(t, []string{`^sysrq: HELP`})
	if p, ok := m.Match("sysrq: HELP : loglevel(0-9)"); !ok || p.Name != "^sysrq: HELP" || p.Fatal {
		t.Errorf("board pattern: %+v, %v", p, ok)
	}
	if p, ok := m.Match("Internal error: Oops: 96000005 [#1] SMP"); !ok || p.Name != "oops" {
		t.Errorf("defaults first: %+v, %v", p, ok)
	}
	m, err := NewKernelMatcher([]string{`(`, `x*`, `^dma: `})
	if err == nil || !strings.Contains(err.Error(), `"("`) || !strings.Contains(err.Error(), `"x*"`) {
		t.Errorf("error %v, want both bad patterns named", err)
	}
	if p, ok := m.Match("dma: timeout"); !ok || p.Name != "^dma: " {
		t.Errorf("the good pattern after bad ones: %+v, %v", p, ok)
	}
	if _, ok := m.Match("random: crng init done"); ok {
		t.Error("x* was kept: it matches every line")
	}
}

func mustMatcher(t *testing.T, board []string) KernelMatcher {
	t.Helper()
	m, err := NewKernelMatcher(board)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestKernelTallyValidate(t *testing.T) {
	for _, tc := range []struct {
		tally KernelTally
		sent  int
		ok    bool
	}{
		{KernelTally{Read: 501, Matched: 1, Fatal: 1}, 65, true},
		{KernelTally{Read: 0, Lost: 12, Unreadable: "dmesg -r: exit status 1"}, 0, true},
		{KernelTally{Read: -1}, 0, false},
		{KernelTally{Read: 3, Matched: 4}, 0, false},
		{KernelTally{Read: 3, Matched: 1, Fatal: 2}, 0, false},
		{KernelTally{Read: 3}, 4, false},
		{KernelTally{Read: 3, Lost: -1}, 0, false},
		{KernelTally{Read: 3, Unreadable: strings.Repeat("x", 513)}, 0, false},
	} {
		if err := tc.tally.Validate(tc.sent); (err == nil) != tc.ok {
			t.Errorf("%+v with %d sent: error %v, want ok %v", tc.tally, tc.sent, err, tc.ok)
		}
	}
}

// guardMisses names a default pattern whose regexp matches line while its guard would skip it, "" when none.
func guardMisses(line string) string {
	text := strings.TrimSpace(line)
	for _, p := range defaultKernelPatterns {
		if len(p.guard) > 0 && p.re.MatchString(text) && !containsAny(strings.ToLower(text), p.guard) {
			return p.Name
		}
	}
	return ""
}
