package serve

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/browsertest"
)

// overlapQuery counts the pairs of x tick labels, per chart, whose boxes as drawn intersect, and how many labels
// were drawn: "overlapping/labels".
const overlapQuery = `(() => {
  let pairs = 0, n = 0;
  for (const svg of document.querySelectorAll('svg')) {
    const boxes = [...svg.querySelectorAll('text.xtick')].map(e => e.getBoundingClientRect());
    n += boxes.length;
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) pairs++;
      }
  }
  return pairs + "/" + n;
})()`

// formQuery is the URL the history form submits with what it shows selected: pressing "show".
const formQuery = `(() => { const f = document.querySelector('form.filters');
  return f.getAttribute('action') + '?' + new URLSearchParams(new FormData(f)).toString(); })()`

// TestHistoryInChromium: /history opens on a stored series and pressing "show" with its defaults answers 200;
// the x tick labels of 40 runs do not overlap as Chromium lays them out, the newest run is named; the step is
// marked and listed; on the default time axis the baseline band regress would use for run 40 is drawn, as
// wide as its threshold, and the axis toggles to the runs by a link; /changes shows it and filters. Screenshots (in $FLEET_SCREENSHOTS when set):
// history-default.png, history-step.png, changes.png.
func TestHistoryInChromium(t *testing.T) {
	b := browsertest.New(t)
	srv := startServerTags(t, writeHistoryFixture(t), map[string][]string{"local": {"x86"}})
	shots := os.Getenv("FLEET_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	clean := func(t *testing.T, p *browsertest.Page) {
		t.Helper()
		if len(p.ConsoleErrors) > 0 {
			t.Errorf("console errors:\n%s", strings.Join(p.ConsoleErrors, "\n"))
		}
		if len(p.FailedRequests) > 0 {
			t.Errorf("failed requests:\n%s", strings.Join(p.FailedRequests, "\n"))
		}
	}
	t.Run("defaults", func(t *testing.T) {
		p := b.Load(t, srv.URL+"/history")
		clean(t, p)
		if n := p.Eval(t, `String(document.querySelectorAll('svg.history circle').length)`); n == "0" {
			t.Fatalf("the default history page draws no points")
		}
		p.Screenshot(t, filepath.Join(shots, "history-default.png"))
		next := p.Eval(t, formQuery)
		if !strings.Contains(next, "board=local") {
			t.Errorf("the form submits %s, want board local selected", next)
		}
		p2 := b.Load(t, srv.URL+next) // pressing "show" with what the page chose
		clean(t, p2)
		if n := p2.Eval(t, `String(document.querySelectorAll('svg.history circle').length)`); n == "0" {
			t.Errorf("show with the defaults (%s) draws no points", next)
		}
	})
	t.Run("time", func(t *testing.T) {
		p := b.Load(t, srv.URL+historyURL)
		clean(t, p)
		if got := p.Eval(t, overlapQuery); !strings.HasPrefix(got, "0/") || got == "0/0" {
			t.Errorf("time axis tick labels: %s (overlapping pairs/labels), want none overlapping", got)
		}
		if title := p.Eval(t, `document.querySelector('svg.history text.axis').textContent`); title != "run start (UTC)" {
			t.Errorf("x axis title %q, want the runs' start time", title)
		}
		if n := p.Eval(t, `String(document.querySelectorAll('svg.history g.band rect').length)`); n != "1" {
			t.Fatalf("%s baseline bands, want 1", n)
		}
		hint := p.Eval(t, `document.querySelector('p.band').innerText`)
		if !strings.Contains(hint, "fleet regress --baseline nightly --threshold 5% would judge run 40") {
			t.Errorf("band hint %q", hint)
		}
		h5 := p.Eval(t, `document.querySelector('svg.history g.band rect').getAttribute('height')`)
		p.Screenshot(t, filepath.Join(shots, "history-time.png"))
		runs := p.Eval(t, `document.querySelector('p.axis a').getAttribute('href')`)
		if !strings.Contains(runs, "axis=runs") {
			t.Fatalf("the axis toggle links to %q", runs)
		}
		p = b.Load(t, srv.URL+historyURL+"&threshold=10%25")
		clean(t, p)
		if h10 := p.Eval(t, `document.querySelector('svg.history g.band rect').getAttribute('height')`); !(parseF(h10) > 1.5*parseF(h5)) {
			t.Errorf("the band at 10%% is %s px high, at 5%% %s: want about twice", h10, h5)
		}
	})
	t.Run("step", func(t *testing.T) {
		p := b.Load(t, srv.URL+historyURL+"&axis=runs")
		clean(t, p)
		got := p.Eval(t, overlapQuery)
		if !strings.HasPrefix(got, "0/") || got == "0/0" || got == "0/1" {
			t.Errorf("x tick labels: %s (overlapping pairs/labels), want none overlapping and several drawn", got)
		}
		last := p.Eval(t, `(() => { const l = [...document.querySelectorAll('svg.history text.xtick')]; return l[l.length-1].textContent; })()`)
		if !strings.HasPrefix(last, "#40") {
			t.Errorf("the last x label is %q, want the newest run #40", last)
		}
		if n := p.Eval(t, `String(document.querySelectorAll('svg.history line.change').length)`); n != "1" {
			t.Errorf("%s change marks, want 1", n)
		}
		list := p.Eval(t, `document.querySelector('ol.changes').innerText`)
		for _, want := range []string{"run 24", "run 25", "1200 → 180", "kernel 6.1.0-18-amd64 → 6.1.0-21-amd64"} {
			if !strings.Contains(list, want) {
				t.Errorf("change list %q lacks %q", list, want)
			}
		}
		p.Screenshot(t, filepath.Join(shots, "history-step.png"))
	})
	t.Run("changes", func(t *testing.T) {
		for _, tc := range []struct {
			path string
			rows string
		}{{"/changes", ""}, {"/changes?tag=x86&label=nightly", ""}, {"/changes?board=other", "0"}} {
			p := b.Load(t, srv.URL+tc.path)
			clean(t, p)
			n := p.Eval(t, `String(document.querySelectorAll('table.alerts tr.change').length)`)
			if (tc.rows == "0") != (n == "0") {
				t.Errorf("%s: %s change rows", tc.path, n)
			}
			if tc.path == "/changes" {
				first := p.Eval(t, `document.querySelector('table.alerts tr.change').innerText`)
				if !strings.Contains(first, "local cpu aes-128-cbc") || !strings.Contains(first, "kernel") {
					t.Errorf("first row %q", first)
				}
				p.Screenshot(t, filepath.Join(shots, "changes.png"))
			}
		}
	})
}

func parseF(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
