package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestBoardHTMLFolded: a board with 40 driver mappings and 3 probe errors shows its status, kernel, OpenSSL,
// CPU and governor before any fold; every other fact is inside the fold, and the drivers and the errors each
// in a fold of their own inside it, one item a line; the skips are folded apart.
func TestBoardHTMLFolded(t *testing.T) {
	f := &protocol.Facts{Hostname: "am64x", Kernel: "6.1.0-ti", OpenSSLVersion: "3.0.13", Machine: "aarch64",
		CPU:     protocol.CPUFacts{Model: "Cortex-A53", Cores: 2, Governor: "performance", Features: []string{"aes", "pmull"}},
		Engines: map[string]string{"devcrypto": "available"}, OpenSSLSHA256: "ab12",
		Errors: []string{"dso: libafalg.so: cannot open shared object file", "dso: libpadlock.so: not found", "dso: x"}}
	for i := range 40 {
		f.ProcCrypto = append(f.ProcCrypto, protocol.CryptoAlg{Name: fmt.Sprintf("alg%02d", i), Driver: fmt.Sprintf("drv%02d", i), Priority: 100})
	}
	br := store.BoardRun{RunID: 7, Board: "am64x", Status: protocol.StatusOK, Points: 24, Facts: f,
		Skips: []protocol.Skip{{Mode: "afalg", Algorithm: "sha256", Reason: "engine afalg not available"}}}
	got := string(BoardHTML(br))
	head, folded, ok := strings.Cut(got, "<details")
	if !ok {
		t.Fatalf("no fold in\n%s", got)
	}
	for _, want := range []string{"<dt>status</dt><dd>ok</dd>", "<dt>kernel</dt><dd>6.1.0-ti</dd>", "<dt>OpenSSL</dt><dd>3.0.13</dd>",
		"<dt>CPU</dt><dd>Cortex-A53, 2 cores</dd>", "<dt>governor</dt><dd>performance</dd>"} {
		if !strings.Contains(head, want) {
			t.Errorf("headline lacks %q:\n%s", want, head)
		}
	}
	for _, hidden := range []string{"hostname", "CPU features", "openssl sha256", "drv00", "libafalg", "not measured"} {
		if strings.Contains(head, hidden) {
			t.Errorf("%q is shown unfolded:\n%s", hidden, head)
		}
	}
	if !strings.HasPrefix(folded, ` class="facts"><summary>`) || !strings.Contains(folded, "more facts, 3 probe errors</summary>") {
		t.Errorf("the facts fold's summary does not count the probe errors:\n%s", folded)
	}
	drivers := regexp.MustCompile(`(?s)<details class="drivers"><summary>40 kernel driver choices[^<]*</summary>\n<ul class="facts">\n(.*?)</ul></details>`).FindStringSubmatch(folded)
	if drivers == nil || strings.Count(drivers[1], "<li>") != 40 || !strings.Contains(drivers[1], "<li>alg39 → drv39 (100)</li>") {
		t.Errorf("the drivers are not a fold of their own with 40 lines:\n%s", folded)
	}
	errs := regexp.MustCompile(`(?s)<details class="errors"><summary>3 probe errors</summary>.*?</details>`).FindString(folded)
	if strings.Count(errs, "<li>") != 3 {
		t.Errorf("the probe errors are not a fold of their own with 3 lines:\n%s", folded)
	}
	factsEnd := strings.Index(folded, "</details>\n</details>")
	if factsEnd < 0 || strings.Index(folded, `class="errors"`) > factsEnd {
		t.Errorf("the list folds are not inside the facts fold:\n%s", folded)
	}
	if !strings.Contains(folded, `<details class="skips"><summary>1 mode or algorithm not measured</summary>`) {
		t.Errorf("the skips are not folded apart:\n%s", folded)
	}
}
