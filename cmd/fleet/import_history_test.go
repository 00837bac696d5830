package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/report"
)

// A night of a pasted history: how fast the board really was (1 before a real change) and what share of each
// line's run the process had the CPU (1 on a quiet machine; a CPU-timed capture's "in X.XXs" is that share of
// its "for Ns").
type pastedNight struct {
	speed    float64
	shareMin float64 // each line's share is drawn from [shareMin, shareMax]
	shareMax float64
}

var (
	// "Doing sha256 for 3s on 256 size blocks: 2433750 sha256's in 2.99s", and the asymmetric and 1.0.x forms
	pastedDoingRE = regexp.MustCompile(`^(Doing .* for \d+s.*: )(\d+)( .* in )(\d+\.\d+)s$`)
	pastedCellRE  = regexp.MustCompile(`\d+\.\d+k`)
)

// pastedCapture rewrites a real capture as the night n would have printed it: each progress line's count is what
// the board did in the CPU time it had (speed × share × 1 % noise), its "in X.XXs" that share of the nominal
// time, and the table's CPU-time rates (rows named in rows) speed × noise, as OpenSSL computes them.
func pastedCapture(text string, n pastedNight, rows []string, rng *rand.Rand) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if m := pastedDoingRE.FindStringSubmatch(line); m != nil {
			count, _ := strconv.ParseFloat(m[2], 64)
			secs, _ := strconv.ParseFloat(m[4], 64)
			share := n.shareMin + (n.shareMax-n.shareMin)*rng.Float64()
			newSecs := math.Round(secs*share*100) / 100
			newCount := math.Round(count * n.speed * (newSecs / secs) * (1 + 0.01*rng.NormFloat64()))
			line = m[1] + strconv.FormatFloat(newCount, 'f', 0, 64) + m[3] + strconv.FormatFloat(newSecs, 'f', 2, 64) + "s"
		}
		for _, r := range rows {
			if strings.HasPrefix(line, r+" ") {
				line = pastedCellRE.ReplaceAllStringFunc(line, func(c string) string {
					v, _ := strconv.ParseFloat(strings.TrimSuffix(c, "k"), 64)
					return strconv.FormatFloat(v*n.speed*(1+0.01*rng.NormFloat64()), 'f', 2, 64) + "k"
				})
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// importPasted imports each night's text as its own run of board, a night apart from 2026-01-01, and returns
// the run ids in night order.
func importPasted(t *testing.T, db, board string, texts []string) []int64 {
	t.Helper()
	dir := t.TempDir()
	var ids []int64
	for i, text := range texts {
		path := writeCapture(t, dir, fmt.Sprintf("night%02d.txt", i+1), text)
		date := time.Date(2026, 1, 1+i, 2, 0, 0, 0, time.UTC).Format("2006-01-02T15:04")
		stdout, stderr, code := runFleet(t, "import", "--db", db, "--board", board, "--label", "wiki", "--date", date, path)
		if code != 0 {
			t.Fatalf("import night %d: exit %d: %s", i+1, code, stderr)
		}
		var id int64
		if i := strings.Index(stdout, "run "); i < 0 {
			t.Fatalf("import night %d: no run id in %q", i+1, stdout)
		} else if _, err := fmt.Sscanf(stdout[i:], "run %d,", &id); err != nil {
			t.Fatalf("import night %d: no run id in %q", i+1, stdout)
		}
		ids = append(ids, id)
	}
	return ids
}

func fleetChanges(t *testing.T, db string, args ...string) []report.Change {
	t.Helper()
	stdout, stderr, code := runFleet(t, append([]string{"changes", "--db", db, "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("changes: exit %d: %s", code, stderr)
	}
	var cs report.ChangesJSON
	if err := json.Unmarshal([]byte(stdout), &cs); err != nil {
		t.Fatalf("changes: %v\n%s", err, stdout)
	}
	return cs.Changes
}

// TestChangesOnBusyPastedHistory is a known truth: twenty pasted CPU-timed sessions of one x86 board (fixture 20,
// OpenSSL 3.0.13: sha256 at six sizes, rsa2048 sign and verify), the machine busy on nights 4–7 and 16–18 (the
// process had the CPU 50–80 % of each line's run, so the wall-derived rate fell with it), a little busy on night 9
// (92–95 %: suspect, still judged), and a real 30 % drop from night 13. Every series must report exactly the drop
// at night 13 and nothing at the busy nights, whose points are invalid ("had the CPU 62 % of the time") and left
// out. Without the CPU-share rule the busy nights 4–7 make a drop at 4 and a rise at 8 in every series.
func TestChangesOnBusyPastedHistory(t *testing.T) {
	text, err := os.ReadFile(capturePath(t, "20"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(20, 26))
	busy := map[int]bool{4: true, 5: true, 6: true, 7: true, 16: true, 17: true, 18: true}
	var texts []string
	for night := 1; night <= 20; night++ {
		n := pastedNight{speed: 1, shareMin: 0.99, shareMax: 1}
		if night >= 13 {
			n.speed = 0.7
		}
		switch {
		case busy[night]:
			n.shareMin, n.shareMax = 0.5, 0.8
		case night == 9:
			n.shareMin, n.shareMax = 0.92, 0.95
		}
		texts = append(texts, pastedCapture(string(text), n, []string{"sha256"}, rng))
	}
	db := filepath.Join(t.TempDir(), "fleet.db")
	ids := importPasted(t, db, "x86", texts)

	cs := fleetChanges(t, db)
	series := map[string][]report.Change{}
	for _, c := range cs {
		series[c.Key().Label()] = append(series[c.Key().Label()], c)
	}
	if got, want := len(series), 8; got != want { // six sha256 sizes, rsa2048 sign and verify
		t.Errorf("changes in %d series, want %d: %+v", got, want, cs)
	}
	for k, list := range series {
		if len(list) != 1 || list[0].Run != ids[12] {
			var at []string
			for _, c := range list {
				at = append(at, fmt.Sprintf("run %d (night %d) %+.0f %% p=%.3f", c.Run, slices.Index(ids, c.Run)+1, 100*c.Delta, c.P))
			}
			t.Errorf("%s: changes at %v, want one at night 13 (run %d)", k, at, ids[12])
			continue
		}
		if c := list[0]; c.Delta > -0.25 || c.Delta < -0.35 || c.NightsBefore != 8 || c.NightsAfter != 5 {
			t.Errorf("%s: step %+.1f %% with %d nights before and %d after, want about −30 %% with 8 and 5 (busy nights left out)",
				k, 100*c.Delta, c.NightsBefore, c.NightsAfter)
		}
	}

	// what the runs say: the busy nights invalid for their CPU share, night 9 suspect, the others ok
	stdout, stderr, code := runFleet(t, "runs", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("runs: exit %d: %s", code, stderr)
	}
	var runs []struct {
		ID       int64 `json:"id"`
		Validity struct {
			Verdict       string   `json:"verdict"`
			InvalidCauses []string `json:"invalid_causes"`
		} `json:"validity"`
	}
	if err := json.Unmarshal([]byte(stdout), &runs); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		night := slices.Index(ids, r.ID) + 1
		want := "ok"
		switch {
		case busy[night]:
			want = "invalid"
		case night == 9:
			want = "suspect"
		}
		if r.Validity.Verdict != want || want == "invalid" && !slices.Equal(r.Validity.InvalidCauses, []string{"CPU share"}) {
			t.Errorf("night %d: verdict %q causes %q, want %s", night, r.Validity.Verdict, r.Validity.InvalidCauses, want)
		}
	}
}

// TestChangesSeeAPastedPartialMask is a known truth: eight pasted -elapsed sessions of an x86 board (fixture L01,
// OpenSSL 3.0.19, aes-128-cbc), and from night 4 the lab pasted `OPENSSL_ia32cap=~0x200000000000000 openssl
// speed …`: AES-NI off, PCLMULQDQ left on, so not mode soft but the cpu path run with a mask, 4 × slower. The
// change must be found in the cpu series at night 4 with the mask among what changed; no soft series may
// appear. Wall-timed captures carry no CPU share: their validity is unknown, and they are still judged.
func TestChangesSeeAPastedPartialMask(t *testing.T) {
	text, err := os.ReadFile(capturePath(t, "L01"))
	if err != nil {
		t.Fatal(err)
	}
	const mask = "~0x200000000000000"
	rng := rand.New(rand.NewPCG(4, 57))
	var texts []string
	for night := 1; night <= 8; night++ {
		n := pastedNight{speed: 1, shareMin: 1, shareMax: 1}
		capture := string(text)
		if night >= 4 {
			n.speed = 0.25
			capture = "root@x86:~# OPENSSL_ia32cap=" + mask + " openssl speed -elapsed -seconds 1 -evp aes-128-cbc\n" +
				regexp.MustCompile(`(?m)^(CPUINFO: \S+)$`).ReplaceAllString(capture, "${1} env:"+mask)
		}
		texts = append(texts, pastedCapture(capture, n, []string{"AES-128-CBC"}, rng))
	}
	if !strings.Contains(texts[3], "CPUINFO: OPENSSL_ia32cap=0xfed83203178bffff:0x18005f42f1bb03a9 env:"+mask) {
		t.Fatalf("night 4 lacks the CPUINFO env: line:\n%s", texts[3])
	}
	db := filepath.Join(t.TempDir(), "fleet.db")
	ids := importPasted(t, db, "x86", texts)

	cs := fleetChanges(t, db)
	sizes := map[int]bool{}
	for _, c := range cs {
		if c.Mode != "cpu" || c.Algorithm != "aes-128-cbc" || c.Run != ids[3] {
			t.Errorf("change %s at run %d, want only cpu aes-128-cbc at night 4 (run %d)", c.Key().Label(), c.Run, ids[3])
			continue
		}
		sizes[c.BlockSize] = true
		if !slices.Contains(c.FactsChanged, "OPENSSL_ia32cap: unset → "+mask) {
			t.Errorf("%s: facts changed %q, want the mask", c.Key().Label(), c.FactsChanged)
		}
		if c.Delta > -0.7 || c.Delta < -0.8 {
			t.Errorf("%s: step %+.1f %%, want about −75 %%", c.Key().Label(), 100*c.Delta)
		}
	}
	if len(sizes) != 6 {
		t.Errorf("changes at sizes %v, want all six", sizes)
	}
	stdout, stderr, code := runFleet(t, "runs", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("runs: exit %d: %s", code, stderr)
	}
	if got := strings.Count(stdout, `"verdict": "unknown"`); got != len(ids) {
		t.Errorf("%d of %d runs with validity unknown:\n%s", got, len(ids), stdout)
	}
}

// TestImportRefusesGarbageMask: a mask OpenSSL would read as something else (~0x2zz is ~0x2 to it) is refused,
// naming the file and line, and nothing is stored.
func TestImportRefusesGarbageMask(t *testing.T) {
	text, err := os.ReadFile(capturePath(t, "L01"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct{ name, text, at string }{
		{"command line", "$ OPENSSL_ia32cap=~0x2zz openssl speed -elapsed -seconds 1 -evp aes-128-cbc\n" + string(text), "cmd.txt:1: "},
		{"CPUINFO", regexp.MustCompile(`(?m)^(CPUINFO: \S+)$`).ReplaceAllString(string(text), "${1} env:0x1:0x2:0x3:0x4:0x5:0x6"),
			"cpuinfo.txt:13: "},
	} {
		file := writeCapture(t, dir, strings.SplitN(tc.at, ":", 2)[0], tc.text)
		db := filepath.Join(t.TempDir(), "fleet.db")
		_, stderr, code := runFleet(t, "import", "--db", db, "--board", "x86", file)
		if code != exitUsage || !strings.Contains(stderr, tc.at) || !strings.Contains(stderr, "not an OPENSSL_ia32cap value") {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming %s", tc.name, code, stderr, tc.at)
		}
		if runs := storedRuns(t, db); len(runs) != 0 {
			t.Errorf("%s: stored %d runs", tc.name, len(runs))
		}
	}
}
