package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// htmlFixture is a small deterministic report: the am64x nightly run, the S00 capture, an emulated board, and the
// history of one series over two runs.
func htmlFixture() HTMLReport {
	ms := append(current(5, map[string]float64{"cpu/aes-128-cbc/16384": 0.75}, nil), s00()...)
	qemu := build(12, "qemu", curStarted, []series{
		{board: "qemu-arm64", mode: "cpu", alg: "aes-128-cbc", op: "encrypt", size: 16, values: jitter(210e6, 3, 0), cpu: 100},
		{board: "qemu-arm64", mode: "cpu", alg: "aes-128-cbc", op: "encrypt", size: 1024, values: jitter(480e6, 3, 1), cpu: 100},
		{board: "qemu-arm64", mode: "cpu", alg: "aes-128-cbc", op: "encrypt", size: 16384, values: jitter(505e6, 3, 2), cpu: 100},
		{board: "qemu-arm64", mode: "afalg", alg: "aes-128-cbc", op: "encrypt", size: 16, values: jitter(4e6, 3, 0), cpu: 100},
		{board: "qemu-arm64", mode: "afalg", alg: "aes-128-cbc", op: "encrypt", size: 1024, values: jitter(150e6, 3, 1), cpu: 100},
		{board: "qemu-arm64", mode: "afalg", alg: "aes-128-cbc", op: "encrypt", size: 16384, values: jitter(390e6, 3, 2), cpu: 100},
	})
	ms = append(ms, qemu...)
	qemuFacts := &protocol.Facts{Hostname: "fleet-qemu-arm64", Machine: "aarch64", Kernel: "6.1.0-28-arm64",
		OpenSSL: "OpenSSL 3.0.20 30 Sep 2026", OpenSSLVersion: "3.0.20",
		CPU: protocol.CPUFacts{Model: "Cortex-A57 (QEMU virt)", Cores: 2}, AFALG: true,
		Modes: []protocol.ModeFact{{Mode: "cpu", Available: true}, {Mode: "afalg", Available: true, Reason: "engine afalg"},
			{Mode: "devcrypto", Reason: "no /dev/crypto"}}}
	runs := []store.Run{
		{ID: 1, UUID: "5e1d9a6c-3b7f-4c1e-9a55-0c8e2f4b7d01", Started: t0, Finished: t0.Add(time.Minute), Label: "S00", Status: protocol.StatusImported, Boards: []string{"am335x"}, Points: 10, Source: "imported from S00"},
		{ID: 11, UUID: "5e1d9a6c-3b7f-4c1e-9a55-0c8e2f4b7d11", Started: curStarted, Finished: curStarted.Add(20 * time.Minute), Label: "nightly", ToolVersion: "v0.2.0", Status: protocol.StatusOK, Boards: []string{"am64x"}, Points: 85,
			Judged: store.Judged{OK: 79, Invalid: 6, InvalidCauses: []string{"background CPU"}}},
		{ID: 12, UUID: "5e1d9a6c-3b7f-4c1e-9a55-0c8e2f4b7d12", Started: curStarted, Label: "qemu", ToolVersion: "v0.2.0", Status: protocol.StatusRunning, Boards: []string{"qemu-arm64"}, Points: 18},
	}
	boards := []store.BoardRun{
		{RunID: 11, Board: "am64x", Status: "ok", Facts: am64xEnvFacts(map[string]string{"OPENSSL_armcap": "0"}, "aes_ce_blk", "sha2_ce"), Points: 85,
			Judged:   store.Judged{OK: 79, Invalid: 6, InvalidCauses: []string{"background CPU"}},
			Previous: &store.PreviousFacts{RunID: 10, Facts: am64xEnvFacts(map[string]string{}, "aes_ce_blk", "sa2ul", "sha2_ce")},
			Skips:    []protocol.Skip{{Mode: "afalg", Reason: "engine afalg not built into this OpenSSL"}, {Mode: "kcapi", Algorithm: "sha256", Reason: "no sha256 driver above the generic one"}}},
		{RunID: 1, Board: "am335x", Status: "ok", Points: 10},
		{RunID: 12, Board: "qemu-arm64", Status: "ok", Facts: qemuFacts, Points: 18,
			Skips: []protocol.Skip{{Mode: "devcrypto", Reason: "no /dev/crypto"}}},
	}
	hist := append(baseline(), current(5, map[string]float64{"cpu/aes-128-cbc/16384": 0.75}, nil)...)
	var series []store.Measurement
	for _, m := range hist {
		if m.Algorithm == "aes-128-cbc" && m.BlockSize == 16384 && m.Mode != "soft" {
			series = append(series, m)
		}
	}
	return HTMLReport{Title: "fleet report: am64x nightly", Runs: runs, Measurements: ms, BoardRuns: boards,
		History: map[string][]store.Measurement{"am64x aes-128-cbc 16384 B": series}}
}

func TestWriteHTMLGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, htmlFixture()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	golden.Check(t, "report.html.golden", b.Bytes())

	// One throughput chart per algorithm with block sizes: aes-128-cbc, aes-256-cbc, sha256.
	if got, want := strings.Count(page, `<svg class="chart"`), 3; got != want {
		t.Errorf("%d throughput charts, want %d (one per algorithm)", got, want)
	}
	if got, want := strings.Count(page, `<svg class="history"`), 1; got != want {
		t.Errorf("%d history charts, want %d", got, want)
	}
	// Self-contained: nothing is fetched when it is viewed.
	for _, bad := range []string{"<script", "<link", "src=", "url(", "@import", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: it must not fetch anything", bad)
		}
	}
	if n := len(regexp.MustCompile(`http://`).FindAllString(page, -1)); n != strings.Count(page, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Errorf("page has http:// references other than the SVG namespace")
	}
	for _, want := range []string{"qemu-arm64 is emulated (QEMU)", "engine afalg not built into this OpenSSL", "6.6.32-ti", "0.81×", "incomplete"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestWriteCompareHTML(t *testing.T) {
	c, err := Compare(append(baseline(), s00()...), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "html"); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(b.String(), `<svg class="chart"`), 3; got != want {
		t.Errorf("%d charts, want %d", got, want)
	}
	if !strings.Contains(b.String(), "0.81×") {
		t.Error("compare --format html lacks the S00 speedup")
	}
}

// TestHTMLLeavesOutEmptyRows: no table row or column of the report is all "-" (the comparison used to print whole
// tables of them for the modes a board does not have), and each algorithm leads with its chart.
func TestHTMLLeavesOutEmptyRows(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, htmlFixture()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	cell := regexp.MustCompile(`<td[^>]*>([^<]*)</td>`)
	for _, row := range regexp.MustCompile(`<tr>(<td.*)</tr>`).FindAllStringSubmatch(page, -1) {
		cells := cell.FindAllStringSubmatch(row[1], -1)
		empty := true
		for _, c := range cells[1:] {
			empty = empty && (c[1] == "-" || c[1] == "")
		}
		if len(cells) > 1 && empty {
			t.Errorf("row without data: %s", row[0])
		}
	}
	for _, tb := range regexp.MustCompile(`(?s)<table>.*?</table>`).FindAllString(page, -1) {
		var cols [][]string
		for _, row := range regexp.MustCompile(`<tr>(<td.*)</tr>`).FindAllStringSubmatch(tb, -1) {
			for i, c := range cell.FindAllStringSubmatch(row[1], -1) {
				if i >= len(cols) {
					cols = append(cols, nil)
				}
				cols[i] = append(cols[i], c[1])
			}
		}
		for i, col := range cols {
			if strings.Trim(strings.Join(col, ""), "-") == "" && strings.Contains(strings.Join(col, ""), "-") {
				t.Errorf("column %d of a table is all \"-\":\n%s", i, tb)
			}
		}
	}
	for _, alg := range []string{"aes-128-cbc", "aes-256-cbc", "sha256"} {
		_, after, ok := strings.Cut(page, "<h3>"+alg+"</h3>\n")
		if !ok {
			t.Errorf("no section for %s", alg)
			continue
		}
		if !strings.HasPrefix(after, `<svg class="chart"`) {
			t.Errorf("the %s section does not start with its chart: %.80q", alg, after)
		}
	}
}

// TestHTMLCrossoverOnChart: the block size from which an accelerator beats the cpu path is a dashed line on the
// algorithm's chart, at that size's tick, with a label; an accelerator that never crosses over has none.
func TestHTMLCrossoverOnChart(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, htmlFixture()); err != nil {
		t.Fatal(err)
	}
	charts := map[string]string{}
	for _, svg := range regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`).FindAllString(b.String(), -1) {
		title := regexp.MustCompile(`aria-label="([^:"]*):`).FindStringSubmatch(svg)
		charts[title[1]] = svg
	}
	aes := charts["aes-128-cbc"]
	markers := regexp.MustCompile(`<g class="crossover"><line x1="([0-9.]+)"[^>]*/><text[^>]*>([^<]*)</text></g>`).FindAllStringSubmatch(aes, -1)
	if len(markers) != 1 {
		t.Fatalf("aes-128-cbc chart has %d crossover markers, want 1 (am64x devcrypto at 16384 B):\n%s", len(markers), aes)
	}
	if got, want := markers[0][2], "am64x devcrypto beats cpu from 16384 B"; got != want {
		t.Errorf("marker label = %q, want %q", got, want)
	}
	tick := regexp.MustCompile(`<text x="([0-9.]+)" y="[0-9]+" class="xtick">16384</text>`).FindStringSubmatch(aes)
	if tick == nil || tick[1] != markers[0][1] {
		t.Errorf("marker at x=%s, the 16384 tick at %v", markers[0][1], tick)
	}
	for _, alg := range []string{"aes-256-cbc", "sha256"} {
		if strings.Contains(charts[alg], `class="crossover"`) {
			t.Errorf("%s chart marks a crossover, but its accelerator never beats cpu", alg)
		}
	}
}

// TestHTMLCPUBarsUnknown: a series without CPU times (an imported capture timed on the wall clock alone) has no
// 0 % bar in the CPU chart: it says "unknown"; a series with CPU times keeps its bar.
func TestHTMLCPUBarsUnknown(t *testing.T) {
	ms := baseline()
	for i := range ms {
		if ms[i].Mode == "devcrypto" {
			ms[i].CPUPct, ms[i].UserS, ms[i].SysS = 0, 0, 0
		}
	}
	c, err := Compare(ms, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, "html"); err != nil {
		t.Fatal(err)
	}
	_, bars, ok := strings.Cut(b.String(), `<svg class="bars"`)
	if !ok {
		t.Fatalf("no CPU bar chart:\n%s", b.String())
	}
	bars, _, _ = strings.Cut(bars, "</svg>")
	if strings.Contains(bars, `class="value">0%</text>`) || strings.Contains(bars, "devcrypto: 0%") {
		t.Errorf("the CPU chart draws 0 %% for a series without CPU times:\n%s", bars)
	}
	if !strings.Contains(bars, ">unknown</text>") {
		t.Errorf("the CPU chart does not say unknown for the series without CPU times:\n%s", bars)
	}
	if !regexp.MustCompile(`cpu[^<]*: [1-9][0-9]*%</title>`).MatchString(bars) {
		t.Errorf("the cpu series lost its bar:\n%s", bars)
	}
}
