// Package browsertest drives a real headless Chromium (chromedp) for tests of pages fleet renders: it loads a
// page, collects console errors, CSP violations and failed requests, reads the DOM and takes screenshots.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Browser is one headless Chromium, ended by the test's cleanup.
type Browser struct {
	ctx context.Context
}

// findChromium returns the browser's path, or "" when none is installed.
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// New starts Chromium with a fresh profile and no background traffic. Without Chromium the test is skipped,
// except in CI (CI set), where Chromium is installed and its absence is a failure.
func New(t *testing.T) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: not starting Chromium")
	}
	bin := findChromium()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium not installed, and CI is set: .ci/install-deps installs it")
		}
		t.Skip("chromium not installed (apt-get install -y chromium): browser test skipped")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-quic", true), chromedp.WindowSize(1280, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	return &Browser{ctx: ctx}
}

// Page is one loaded page: what went wrong while loading it, and the tab to ask further.
type Page struct {
	URL            string
	ConsoleErrors  []string // console.error, uncaught exceptions, and browser log errors (CSP violations among them)
	FailedRequests []string // requests that failed or answered 4xx/5xx
	ctx            context.Context
}

// Load opens url in a new tab and waits until it has loaded (and 300 ms more for late errors).
func (b *Browser) Load(t *testing.T, url string) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	p := &Page{URL: url, ctx: ctx}
	var mu sync.Mutex
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				p.ConsoleErrors = append(p.ConsoleErrors, fmt.Sprintf("console.%s: %v", e.Type, args(e.Args)))
			}
		case *runtime.EventExceptionThrown:
			p.ConsoleErrors = append(p.ConsoleErrors, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				p.ConsoleErrors = append(p.ConsoleErrors, fmt.Sprintf("%s: %s (%s)", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		case *network.EventLoadingFailed:
			p.FailedRequests = append(p.FailedRequests, fmt.Sprintf("%s: %s %s", e.RequestID, e.ErrorText, e.BlockedReason))
		case *network.EventResponseReceived:
			if e.Response.Status >= 400 {
				p.FailedRequests = append(p.FailedRequests, fmt.Sprintf("%s: %d", e.Response.URL, e.Response.Status))
			}
		}
	})
	if err != nil {
		t.Fatalf("listen to the tab: %v", err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	defer tcancel()
	for _, enable := range []func() error{
		func() error { _, err := chromedp.Call(tctx, log.Enable, cdp.Empty{}); return err },
		func() error { _, err := chromedp.Call(tctx, runtime.Enable, cdp.Empty{}); return err },
		func() error { _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); return err },
	} {
		if err := enable(); err != nil {
			t.Fatalf("enable DevTools domains: %v", err)
		}
	}
	if err := chromedp.Do(tctx, chromedp.Navigate(url), chromedp.WaitReady("body"),
		chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	mu.Lock()
	defer mu.Unlock()
	p.ConsoleErrors = append([]string(nil), p.ConsoleErrors...)
	p.FailedRequests = append([]string(nil), p.FailedRequests...)
	return p
}

func args(as []*runtime.RemoteObject) []string {
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprint(a.Value)+a.Description)
	}
	return out
}

// Eval evaluates a JavaScript expression in the page (through the DevTools protocol: the page's own CSP does
// not apply) and returns its value as a string (JSON.stringify it for anything else).
func (p *Page) Eval(t *testing.T, expr string) string {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("evaluate %s on %s: %v", expr, p.URL, err)
	}
	return v
}

// Screenshot saves a PNG of the whole page to path.
func (p *Page) Screenshot(t *testing.T, path string) {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", p.URL, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
