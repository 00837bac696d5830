package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// firstRunOutcome is the local board of a newcomer's first `fleet run --boards local` on this project's busy
// 2-core VM (x86_64, OpenSSL 3.0.19, no /dev/crypto, no AF_ALG), as fleet.Run returned it and the store judged it.
func firstRunOutcome() (fleet.BoardOutcome, boardValidity) {
	afalg := "engine afalg: not available: init failed: error:4000006D:lib(128)::reason(109):../engines/e_afalg.c:859:"
	kcapi := "AF_ALG socket: address family not supported by protocol"
	o := fleet.BoardOutcome{Board: "local", Status: protocol.StatusOK, Points: 24, Skips: 3, Arch: "amd64",
		Summary: "x86_64, Linux 6.18.44-fc-v1300, OpenSSL 3.0.19",
		Skipped: []protocol.Skip{{Mode: "devcrypto", Reason: "no /dev/crypto"}, {Mode: "afalg", Reason: afalg}, {Mode: "kcapi", Reason: kcapi}},
		Modes: fleet.ModeReport{Measured: []string{"soft", "cpu"}, Available: []string{"soft", "cpu"},
			Unavailable: []protocol.ModeFact{{Mode: "devcrypto", Reason: "no /dev/crypto"}, {Mode: "afalg", Reason: afalg}, {Mode: "kcapi", Reason: kcapi}}},
		Verification: fleet.Verified{Paths: 4, OK: 4, Seconds: 0.4}}
	v := boardValidity{verdict: protocol.ValidityInvalid,
		reasons: []string{"24 of 24 points invalid (first: background CPU 85.7 % (limit 8 %))",
			"mean background CPU 86.5 % over 24 points (suspect above 2 %)"},
		judged: store.Judged{Invalid: 24, InvalidCauses: []string{"background CPU"}}}
	return o, v
}

// runSummaryCases are the run summaries kept as golden files: the first run above; --modes soft,cpu on the same
// machine (no skip, three modes not available); a lab of three boards: one ok and valid, one partial with a
// lost link, an algorithm it cannot offload, a suspect point and a hwmon rail its path cannot sample, one that
// failed before its probe.
func runSummaryCases() map[string][]string {
	busy, busyV := firstRunOutcome()
	asked := busy
	asked.Skips, asked.Skipped = 0, nil
	am64x := fleet.BoardOutcome{Board: "am64x", Status: protocol.StatusOK, Points: 72, Arch: "arm64",
		Summary: "aarch64, Linux 6.6.32-ti, OpenSSL 3.0.13",
		Modes: fleet.ModeReport{Measured: []string{"soft", "cpu", "devcrypto", "afalg", "kcapi"},
			Offload: []fleet.Offload{{Driver: "cbc-aes-sa2ul", Asked: true}}},
		Verification: fleet.Verified{Paths: 10, OK: 9, Unknown: 1, Seconds: 6.2}}
	imx6q := fleet.BoardOutcome{Board: "imx6q-sabresd-rev-b3", Status: protocol.StatusPartial, Points: 31, Failed: 1,
		Summary: "armv7l, Linux 5.15.71-imx, OpenSSL 1.1.1w", Arch: "arm",
		Cause:   "sweep imx6q-sabresd-rev-b3: board lost during the sweep: connection lost (ssh: read tcp 10.0.0.5:50322->10.0.0.17:22: read: connection reset by peer)",
		Skipped: []protocol.Skip{{Mode: "devcrypto", Algorithm: "sha256", Reason: "not offloaded by the driver (cryptodev has no sha256 on this kernel)"}},
		Modes: fleet.ModeReport{Measured: []string{"soft", "cpu", "devcrypto"},
			Unavailable: []protocol.ModeFact{{Mode: "afalg", Reason: "engine afalg: not available: 3080304384:error:80065067:lib(128):afalg_create_sk:socket bind failed:../engines/e_afalg.c:389:"}}},
		Verification:  fleet.Verified{Paths: 6, OK: 6, Seconds: 11.8},
		EnergyUnknown: "the shell path does not sample the board's hwmon rails (the agent does); a meter the controller reads, power_command in boards.toml, measures a shell-path board"}
	imx6qV := boardValidity{verdict: protocol.ValiditySuspect,
		reasons: []string{"1 of 31 points suspect (first: throttled: 12 % of the time below 996 MHz (limit 10 %))"},
		judged:  store.Judged{Suspect: 1, SuspectCauses: []string{"throttled"}}}
	am335x := fleet.BoardOutcome{Board: "am335x", Status: protocol.StatusFailed,
		Cause: "connect am335x (192.168.7.2:22): dial tcp 192.168.7.2:22: connect: no route to host; the board is off or on another network"}
	return map[string][]string{
		"run-summary-first-run":   runSummary(1, []fleet.BoardOutcome{busy}, map[string]boardValidity{"local": busyV}),
		"run-summary-modes-asked": runSummary(2, []fleet.BoardOutcome{asked}, map[string]boardValidity{"local": busyV}),
		"run-summary-lab":         runSummary(7, []fleet.BoardOutcome{am64x, imx6q, am335x}, map[string]boardValidity{"am64x": {verdict: protocol.ValidityOK}, imx6q.Board: imx6qV}),
	}
}

// TestGoldenRunSummary compares the end of fleet run with testdata/run-summary-*.golden.
func TestGoldenRunSummary(t *testing.T) {
	for name, lines := range runSummaryCases() {
		t.Run(name, func(t *testing.T) {
			golden.Check(t, name+".golden", []byte(strings.Join(lines, "\n")+"\n"))
		})
	}
}

// TestRunSummaryFits: every line of every run summary kept as a golden file fits the 100 columns the README
// promises, or is folded under a deeper indent than the line it continues; the first run printed 119 columns.
func TestRunSummaryFits(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "run-summary-*.golden"))
	if err != nil || len(files) < 3 {
		t.Fatalf("run summary golden files: %v, %v; want the 3 of TestGoldenRunSummary", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			if n := width(l); n > summaryWidth {
				t.Errorf("%s:%d: %d columns, want ≤ %d: %q", f, i+1, n, summaryWidth, l)
			}
		}
	}
}

// TestRunSummarySaysOneThing: the first run's board reads invalid in its headline and nowhere ok; its counts are
// those of the lines under it (three modes not available, three such lines, whether or not they were skips); its
// afalg reason is in words, its verification says what a path is, and it ends with what to do naming the real
// flag and boards.toml keys.
func TestRunSummarySaysOneThing(t *testing.T) {
	cases := runSummaryCases()
	for _, name := range []string{"run-summary-first-run", "run-summary-modes-asked"} {
		lines := cases[name]
		text := strings.Join(lines, "\n")
		if !regexp.MustCompile(`^  local\s+invalid\s+24 points, all invalid; 3 modes not available$`).MatchString(lines[1]) {
			t.Errorf("%s: headline %q, want local invalid, 24 points, all invalid; 3 modes not available", name, lines[1])
		}
		if regexp.MustCompile(`\bok\s+24 points|skips`).MatchString(text) {
			t.Errorf("%s: the board reads ok or counts skips:\n%s", name, text)
		}
		m := regexp.MustCompile(`(\d+) modes not available`).FindStringSubmatch(lines[1])
		listed := 0
		for _, l := range lines {
			if regexp.MustCompile(`^ {8}\S+: `).MatchString(l) {
				listed++
			}
		}
		if n, _ := strconv.Atoi(m[1]); n != listed {
			t.Errorf("%s: headline says %d modes not available, %d listed:\n%s", name, n, listed, text)
		}
		for _, want := range []string{"afalg: the afalg engine did not load: the kernel has no AF_ALG sockets",
			"outputs checked on 4 paths (mode × algorithm): 4 ok", "to do: run on a quiet board", "--quiet-wait",
			"quiet_wait in [boards.local.validity] in boards.toml"} {
			if !strings.Contains(unfold(text), want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
		if strings.Contains(text, "error:") || strings.Count(text, "to do:") != 1 {
			t.Errorf("%s: a raw OpenSSL error, or not one to-do line:\n%s", name, text)
		}
	}
	lab := strings.Join(cases["run-summary-lab"], "\n")
	if strings.Count(lab, "(mode × algorithm)") != 1 || strings.Count(lab, "to do:") != 2 {
		t.Errorf("the lab: want the paths explained once and a to-do line for each of the two boards that need one:\n%s", lab)
	}
	if n := strings.Count(unfold(lab), "energy: unknown: the shell path does not sample the board's hwmon rails"); n != 1 {
		t.Errorf("the lab: the board whose rail was not sampled says so %d times, want once:\n%s", n, lab)
	}
}

// unfold joins folded lines to the line they continue, as a reader does.
func unfold(text string) string {
	return foldBreak.ReplaceAllString(text, " ")
}

// foldBreak is a fold: a line end with the spaces around it (the continuation's indent)
var foldBreak = regexp.MustCompile(`[ \t]*\n[ \t]*`)

// TestFold: a line past the width breaks at spaces under the indent; a word longer than a line is cut.
func TestFold(t *testing.T) {
	long := "      cause: " + strings.Repeat("word ", 30)
	lines := fold(long, "        ")
	if len(lines) < 2 {
		t.Fatalf("fold gave %q", lines)
	}
	var b bytes.Buffer
	for i, l := range lines {
		if width(l) > summaryWidth || i > 0 && !strings.HasPrefix(l, "        w") {
			t.Errorf("line %d: %q", i, l)
		}
		b.WriteString(strings.TrimSpace(l) + " ")
	}
	if got, want := b.String(), strings.TrimSpace(long)+" "; got != want {
		t.Errorf("folded text = %q, want %q", got, want)
	}
	path := "      " + strings.Repeat("x", 250)
	for _, l := range fold(path, "        ") {
		if width(l) > summaryWidth {
			t.Errorf("a long word is not cut: %d columns", width(l))
		}
	}
	if got := fold("  short", "    "); len(got) != 1 || got[0] != "  short" {
		t.Errorf("fold of a short line = %q", got)
	}
}
