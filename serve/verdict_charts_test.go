package serve

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/browsertest"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// TestVerdictChartsInChromium: the regress page draws, per series group, the baseline's spread as a band and
// the judged run per block size, and the 30 % drop of am64x devcrypto is drawn below its band at every size;
// the reference page draws the measured median beside the published figure. Screenshots (in
// $FLEET_SCREENSHOTS when set): regress.png, reference.png, run-boards.png.
func TestVerdictChartsInChromium(t *testing.T) {
	path := writeFixture(t)
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ImportReference(context.Background(), store.RunInfo{Label: "ti-sdk", Source: "TI guide"}, []store.BoardPoint{
		{Board: "am64x", Point: protocol.Point{Mode: "accelerator", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 1024,
			Threads: 1, BytesPerSec: 30e6}},
		{Board: "am64x", Point: protocol.Point{Mode: "accelerator", Algorithm: "aes-128-cbc", Op: "encrypt", BlockSize: 16384,
			Threads: 1, BytesPerSec: 600e6}},
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	b := browsertest.New(t)
	srv := startServer(t, path)
	shots := os.Getenv("FLEET_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	p := b.Load(t, srv.URL+"/regress?baseline=2&run=3")
	if len(p.ConsoleErrors) > 0 {
		t.Errorf("console errors %q", p.ConsoleErrors)
	}
	if n := p.Eval(t, `String(document.querySelectorAll("svg.regress").length)`); n != "8" {
		t.Errorf("%s regress charts, want 8 (2 boards × 2 modes × 2 algorithms)", n)
	}
	// on the drop's chart every judged point lies below (a larger y than) the band's lowest edge at its size
	below := p.Eval(t, `(() => {
	  const svg = document.querySelector('svg.regress[aria-label="am64x devcrypto aes-128-cbc encrypt"]');
	  if (!svg) return "no chart";
	  const band = svg.querySelector('polygon.spread').getAttribute('points').trim().split(/\s+/).map(p => p.split(',').map(Number));
	  const judged = [...svg.querySelectorAll('g.series')[1].querySelectorAll('circle')].map(c => [+c.getAttribute('cx'), +c.getAttribute('cy')]);
	  return judged.map(([x, y]) => { const lows = band.filter(p => Math.abs(p[0] - x) < 0.2).map(p => p[1]);
	    return lows.length == 2 && y > Math.max(...lows) ? "below" : "inside"; }).join(",");
	})()`)
	if below != "below,below,below" {
		t.Errorf("the dropped run's points against the baseline band: %s, want below at its 3 sizes", below)
	}
	p.Screenshot(t, filepath.Join(shots, "regress.png"))

	p = b.Load(t, srv.URL+"/compare?run=3&reference=ti-sdk")
	got := p.Eval(t, `Array.from(document.querySelectorAll("svg.reference")).map(s => s.getAttribute("aria-label") + ":" + s.querySelectorAll("circle").length).join("|")`)
	if !regexp.MustCompile(`^am64x devcrypto aes-128-cbc encrypt:\d+$`).MatchString(got) {
		t.Errorf("reference charts %q, want am64x devcrypto's", got)
	}
	if legend := p.Eval(t, `document.querySelector("svg.reference").textContent`); !strings.Contains(legend, "published: ti-sdk") {
		t.Errorf("the reference chart's legend %q does not name the published table", legend)
	}
	p.Screenshot(t, filepath.Join(shots, "reference.png"))

	p = b.Load(t, srv.URL+"/runs/3")
	if open := p.Eval(t, `String(document.querySelectorAll("section.board details[open]").length)`); open != "0" {
		t.Errorf("%s board folds open on load, want all closed", open)
	}
	p.Screenshot(t, filepath.Join(shots, "run-boards.png"))
}
