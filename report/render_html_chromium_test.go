//go:build linux

package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWriteHTMLChromium opens the report in real headless Chromium and checks that the charts were drawn.
func TestWriteHTMLChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not starting Chromium")
	}
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("chromium not installed (apt-get install -y chromium)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	data := htmlFixture()
	if err := WriteHTML(&b, data); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "out.png")
	// No timeout of its own: a screenshot on a loaded machine takes what it takes. Chromium is stopped only
	// shortly before the test binary's own deadline (go test -timeout), so that the test fails with Chromium's
	// output rather than the binary's panic, and no helper process outlives it.
	ctx := context.Background()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-15*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1200,2000",
		"--hide-scrollbars", "file://"+page)
	cmd.Dir = dir
	// Chromium forks helpers (zygote, GPU, network service); on timeout, end the whole process group so that
	// none outlives the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode screenshot: %v", err)
	}
	if got, want := strings.Count(b.String(), `<svg class="chart"`), 3; got != want {
		t.Errorf("%d <svg class=\"chart\"> in the page, want %d (one per algorithm)", got, want)
	}
	if keep := os.Getenv("FLEET_KEEP_SCREENSHOT"); keep != "" {
		if data, err := os.ReadFile(shot); err == nil {
			os.WriteFile(keep, data, 0o644)
		}
	}
	bounds := img.Bounds()
	if bounds.Dx() < 1000 || bounds.Dy() < 1500 {
		t.Fatalf("screenshot is %v, want 1200×2000", bounds)
	}
	// The first chart sits below the comparison tables; count coloured (not grey, not white) pixels in the lower
	// part of the page, where the charts are, and make sure every palette colour of the first chart's lines shows.
	chartArea := image.Rect(0, bounds.Dy()/3, bounds.Dx(), bounds.Dy())
	coloured, nonWhite := 0, 0
	for y := chartArea.Min.Y; y < chartArea.Max.Y; y++ {
		for x := chartArea.Min.X; x < chartArea.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			if r < 245 || g < 245 || b < 245 {
				nonWhite++
			}
			if maxOf(r, g, b)-minOf(r, g, b) > 60 {
				coloured++
			}
		}
	}
	total := chartArea.Dx() * chartArea.Dy()
	t.Logf("chart area: %d of %d pixels not white, %d coloured", nonWhite, total, coloured)
	if nonWhite < total/100 {
		t.Errorf("chart area is blank: %d of %d pixels not white", nonWhite, total)
	}
	if coloured < 2000 {
		t.Errorf("only %d coloured pixels: the chart lines and bars were not drawn", coloured)
	}
}

func maxOf(v ...uint32) uint32 {
	m := v[0]
	for _, x := range v[1:] {
		m = max(m, x)
	}
	return m
}

func minOf(v ...uint32) uint32 {
	m := v[0]
	for _, x := range v[1:] {
		m = min(m, x)
	}
	return m
}
