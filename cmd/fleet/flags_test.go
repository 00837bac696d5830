package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// seededDB is a database with a nightly run and a later unlabelled rerun of board am64x, as runs 1 and 2.
func seededDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "fleet.db")
	v := map[string]float64{"cpu/16": 300e6, "cpu/16384": 900e6, "devcrypto/16": 20e6, "devcrypto/16384": 400e6}
	storeSweep(t, db, "nightly", v)
	storeSweep(t, db, "", v)
	return db
}

// wantUsage runs fleet and wants exit 2 with every one of wants in stderr.
func wantUsage(t *testing.T, args []string, wants ...string) {
	t.Helper()
	stdout, stderr, code := runFleet(t, args...)
	if code != exitUsage {
		t.Errorf("fleet %q: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, exitUsage, stdout, stderr)
		return
	}
	for _, w := range wants {
		if !strings.Contains(unfold(stderr), unfold(w)) {
			t.Errorf("fleet %q: stderr lacks %q:\n%s", args, w, stderr)
		}
	}
}

// TestTypedGlobalFlagBeatsEnvironment: --db and --inventory/-i, before or after the command name, win over
// FLEET_DB and FLEET_INVENTORY.
func TestTypedGlobalFlagBeatsEnvironment(t *testing.T) {
	dir := t.TempDir()
	envDB, typedDB := filepath.Join(dir, "env.db"), filepath.Join(dir, "typed.db")
	storeSweep(t, envDB, "from-env", map[string]float64{"cpu/16": 1e6})
	storeSweep(t, typedDB, "from-flag", map[string]float64{"cpu/16": 1e6})
	envInv, typedInv := filepath.Join(dir, "env.toml"), filepath.Join(dir, "typed.toml")
	for path, board := range map[string]string{envInv: "envboard", typedInv: "typedboard"} {
		if err := os.WriteFile(path, []byte("[boards."+board+"]\nhost = \"192.0.2.1\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("FLEET_DB", envDB)
	t.Setenv("FLEET_INVENTORY", envInv)
	for _, tc := range []struct {
		name      string
		args      []string
		want, not string
	}{
		{"db before", []string{"--db", typedDB, "runs"}, "from-flag", "from-env"},
		{"db after", []string{"runs", "--db", typedDB}, "from-flag", "from-env"},
		{"db env", []string{"runs"}, "from-env", "from-flag"},
		{"-i before", []string{"-i", typedInv, "boards", "list"}, "typedboard", "envboard"},
		{"--inventory before", []string{"--inventory", typedInv, "boards", "list"}, "typedboard", "envboard"},
		{"-i after", []string{"boards", "list", "-i", typedInv}, "typedboard", "envboard"},
		{"inventory env", []string{"boards", "list"}, "envboard", "typedboard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runFleet(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, tc.want) || strings.Contains(stdout, tc.not) {
				t.Errorf("fleet %q printed %q, want %s and not %s", tc.args, stdout, tc.want, tc.not)
			}
		})
	}
}

// TestRegressRefusesOutOfRangeThresholdAndAlpha: non-finite, zero, negative and too large values are refused with
// the range, never replaced by the defaults.
func TestRegressRefusesOutOfRangeThresholdAndAlpha(t *testing.T) {
	db := seededDB(t)
	const thRange, alphaRange = "more than 0% and at most 100%", "more than 0 and less than 1"
	for _, tc := range []struct {
		flag, value, want string
	}{
		{"--threshold", "NaN%", thRange},
		{"--threshold", "nan", thRange},
		{"--threshold", "Inf%", thRange},
		{"--threshold", "-Inf", thRange},
		{"--threshold", "0%", thRange},
		{"--threshold", "0", thRange},
		{"--threshold", "-5%", thRange},
		{"--threshold", "500%", thRange},
		{"--threshold", "100.5%", thRange},
		{"--threshold", "five", thRange},
		{"--alpha", "0", alphaRange},
		{"--alpha", "-1", alphaRange},
		{"--alpha", "1", alphaRange},
		{"--alpha", "2", alphaRange},
		{"--alpha", "NaN", alphaRange},
		{"--alpha", "Inf", alphaRange},
		{"--alpha", "1e-400", alphaRange},
	} {
		t.Run(tc.flag+"="+tc.value, func(t *testing.T) {
			wantUsage(t, []string{"regress", "--db", db, "--baseline", "nightly", tc.flag, tc.value}, tc.flag, tc.want)
		})
	}
	for _, args := range [][]string{{"--threshold", "100%"}, {"--threshold", "0.5"}, {"--alpha", "0.5"}, {"--alpha", "0.001"}} {
		t.Run("accepts "+strings.Join(args, "="), func(t *testing.T) {
			if _, stderr, code := runFleet(t, append([]string{"regress", "--db", db, "--baseline", "nightly"}, args...)...); code != 0 {
				t.Errorf("exit %d, want 0: %s", code, stderr)
			}
		})
	}
	// The values given are the values used: the JSON names them.
	stdout, stderr, code := runFleet(t, "regress", "--db", db, "--baseline", "nightly", "--threshold", "0.5%", "--alpha", "0.2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{`"threshold": 0.005`, `"alpha": 0.2`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("JSON lacks %s:\n%.400s", want, stdout)
		}
	}
}

// TestRunValidatesEveryFlagBeforeMeasuring: a bad flag of run is refused before the database is opened or a board
// is touched (the database file is not even created).
func TestRunValidatesEveryFlagBeforeMeasuring(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"format", []string{"--format", "xml"}, `unknown format "xml" for run (want text, csv or json)`},
		{"label", []string{"--label", "latest"}, "--label"},
		{"concurrency", []string{"--concurrency", "0"}, "--concurrency 0"},
		{"modes", []string{"--modes", "sofft"}, "--modes"},
		{"kcapi driver", []string{"--modes", "cpu,kcapi:cbc aes"}, `driver name "cbc aes": character ' '`},
		{"kcapi driver too long", []string{"--modes", "kcapi:" + strings.Repeat("x", 64)}, "AF_ALG binds at most 63"},
		{"algorithms", []string{"--algorithms", "aes;rm -rf"}, "--algorithms"},
		{"repeat", []string{"--repeat", "0"}, "repeats 0 is out of range"},
		{"extra argument", []string{"now"}, "run takes no arguments"},
		{"agent", []string{"--agent", "testdata"}, "--agent"},
		{"agent missing", []string{"--agent", "no-such-agent"}, "--agent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "fleet.db")
			wantUsage(t, append([]string{"run", "--boards", "local", "--db", db}, tc.args...), tc.want)
			if _, err := os.Stat(db); err == nil {
				t.Errorf("%s was created: the run started before its flags were checked", db)
			}
		})
	}
}

// TestLabelsWithControlCharactersOrRunReferencesRefused: labels with control characters, and labels that would be
// read as a reference to a run (latest, previous, a number), are refused by run and import before storing anything.
func TestLabelsWithControlCharactersOrRunReferencesRefused(t *testing.T) {
	capture := captureFile(t, "L01_local-3.0-evp-aes128cbc-elapsed.txt")
	for _, label := range []string{"x\nnightly", "\x1b[31mred", "a\x00b", "tab\there", "del\x7f", "latest", "previous", "7", "007", "+7", "-3",
		"99999999999999999999", strings.Repeat("n", store.MaxLabelLen+1)} {
		t.Run(label, func(t *testing.T) {
			for _, cmd := range [][]string{
				{"import", "--board", "am335x", capture},
				{"run", "--boards", "local"},
			} {
				db := filepath.Join(t.TempDir(), "fleet.db")
				wantUsage(t, append(cmd, "--db", db, "--label", label), "--label")
				if _, err := os.Stat(db); err == nil {
					t.Errorf("%s: %s was created despite the bad label", cmd[0], db)
				}
			}
		})
	}
	db := filepath.Join(t.TempDir(), "fleet.db")
	if _, stderr, code := runFleet(t, "import", "--board", "am335x", "--db", db, "--label", "latest-2 (kernel 6.1)", capture); code != 0 {
		t.Fatalf("a good label was refused: exit %d: %s", code, stderr)
	}
	if stdout, stderr, code := runFleet(t, "show", "--db", db, "latest-2 (kernel 6.1)"); code != 0 || !strings.Contains(stdout, "latest-2 (kernel 6.1)") {
		t.Errorf("the run is not selectable by its label: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestSilentlyIgnoredValuesRefused: each value that used to be ignored or replaced is refused.
func TestSilentlyIgnoredValuesRefused(t *testing.T) {
	db := seededDB(t)
	capture := captureFile(t, "L01_local-3.0-evp-aes128cbc-elapsed.txt")
	for _, tc := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"run", "--boards", "local", "--concurrency", "0"}, []string{"--concurrency 0", "at least 1"}},
		{[]string{"run", "--boards", "local", "--concurrency", "-1"}, []string{"--concurrency -1", "at least 1"}},
		{[]string{"boards", "check", "--boards", "local", "-j", "0"}, []string{"--concurrency 0"}},
		{[]string{"import", "--board", "am335x", "--dry-run", "--format", "xml", capture}, []string{`unknown format "xml" for import (want text or json)`}},
		{[]string{"import", "--board", "am335x", "--format", "xml", capture}, []string{`unknown format "xml"`}},
		{[]string{"show", "1", "2"}, []string{"show takes at most 1 RUN, got 2 arguments", `"2"`}},
		{[]string{"runs", "nightly"}, []string{"runs takes no arguments"}},
		{[]string{"results", "--size", "-1"}, []string{"--size -1", "at least 0"}},
		{[]string{"history", "--board", "am64x", "--algorithm", "aes-128-cbc", "--size", "-16"}, []string{"--size -16"}},
		{[]string{"runs", "--limit", "-1"}, []string{"--limit -1"}},
		{[]string{"report", "-o", "-", "--history", "nosuch;alg"}, []string{"--history", `"nosuch;alg"`}},
		{[]string{"report", "-o", "-", "--history", "aes-128-cbx"}, []string{"--history", `no algorithm "aes-128-cbx"`, `did you mean "aes-128-cbc"`}},
		{[]string{"compare", "--unit", "furlongs"}, []string{"--unit", "MB/s"}},
		{[]string{"compare", "--format", "xml"}, []string{`unknown format "xml" for compare (want text, markdown, csv, json or html)`}},
		{[]string{"--db", "", "runs"}, []string{"--db: empty path"}},
		{[]string{"regress", "--baseline", "nightly", "--junit", "no-such-dir/regress.xml"}, []string{"--junit", "directory does not exist"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			wantUsage(t, append(tc.args, "--db", db), tc.wants...)
		})
	}
}

// TestHelpShowsProfileDefaults: the sweep flags that override the profile do not claim a default of 0.
func TestHelpShowsProfileDefaults(t *testing.T) {
	stdout, _, code := runFleet(t, "run", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, flag := range []string{"--repeat", "--threads", "--seconds", "--sizes"} {
		line := ""
		lines := strings.Split(stdout, "\n")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), flag+" ") {
				line = l
				// the usage folds under its column: its continuation lines start with spaces alone
				for j := i + 1; j < len(lines) && strings.HasPrefix(lines[j], "      ") &&
					!strings.HasPrefix(strings.TrimSpace(lines[j]), "-"); j++ {
					line += " " + strings.TrimSpace(lines[j])
				}
			}
		}
		if !strings.Contains(line, "(default: from the profile") || strings.Contains(line, "default: 0") {
			t.Errorf("%s help line = %q, want (default: from the profile)", flag, line)
		}
	}
}

// captureFile is a real openssl speed capture from the parser's testdata; a missing one fails the test.
func captureFile(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join("..", "..", "opensslspeed", "testdata", "captures", name)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("capture %s: %v", name, err)
	}
	return path
}

// TestFormatFlagsComeFromTheViews: each command's --format help lists exactly what its report view offers, and the
// query commands accept every one of them.
func TestFormatFlagsComeFromTheViews(t *testing.T) {
	db := seededDB(t)
	for _, tc := range []struct {
		view report.View
		args []string
	}{
		{report.ViewCompare, []string{"compare"}},
		{report.ViewRegress, []string{"regress", "--baseline", "nightly"}},
		{report.ViewRuns, []string{"runs"}},
		{report.ViewResults, []string{"results"}},
		{report.ViewHistory, []string{"history", "--board", "am64x", "--algorithm", "aes-128-cbc"}},
		{report.ViewShow, []string{"show", "1"}},
		{report.ViewRun, []string{"run"}},
		{report.ViewImport, []string{"import"}},
	} {
		t.Run(string(tc.view), func(t *testing.T) {
			help, _, _ := runFleet(t, tc.args[0], "--help")
			want := "output FORMAT: " + strings.Join(tc.view.Formats(), ", ") + " (default: \"" + tc.view.Formats()[0] + "\")"
			if !strings.Contains(help, want) {
				t.Errorf("fleet %s --help lacks %q:\n%s", tc.args[0], want, help)
			}
			if tc.view == report.ViewRun || tc.view == report.ViewImport {
				return // measured or read from files: covered elsewhere
			}
			for _, f := range tc.view.Formats() {
				stdout, stderr, code := runFleet(t, append(tc.args, "--db", db, "--format", f)...)
				if code != 0 || stdout == "" {
					t.Errorf("fleet %s --format %s: exit %d, %d bytes out: %s", tc.args[0], f, code, len(stdout), stderr)
				}
			}
		})
	}
}

// TestFractionalSecondsRefused: --seconds takes whole seconds, as every openssl's -seconds does; a fraction
// is refused (exit 2, saying why) before anything is measured, never rounded in silence.
func TestFractionalSecondsRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fleet.db")
	for _, s := range []string{"0.5", "1.5", "0.001"} {
		_, stderr, code := runFleet(t, "run", "--db", db, "--boards", "local", "--algorithms", "sha256", "--seconds", s)
		if code != exitUsage || !strings.Contains(stderr, "--seconds: seconds "+s+" is not a whole number: openssl speed -seconds takes whole seconds") {
			t.Errorf("--seconds %s: exit %d, %q; want 2 saying openssl takes whole seconds", s, code, stderr)
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("a refused --seconds created the database")
	}
}
