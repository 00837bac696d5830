package report

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/internal/golden"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/store"
)

// sshPoint is one mode ssh point as fleet run stores it.
func sshPoint(run int64, board, cipher, op string, repeat int, mbps, boardCPU, ctlCPU float64, extra ...string) store.Measurement {
	neg := cipher + ", hmac-sha2-256-etm@openssh.com"
	if strings.Contains(cipher, "@openssh.com") {
		neg = cipher + ", implicit MAC"
	}
	flags := []string{protocol.FlagSSHServer + "SSH-2.0-OpenSSH_9.2p1", protocol.FlagControllerCPU + formatValue(ctlCPU)}
	if ctlCPU >= protocol.HostBoundPct {
		flags = append(flags, protocol.FlagHostBound)
	}
	flags = append(flags, extra...)
	return store.Measurement{RunID: run, Board: board, Point: protocol.Point{Mode: protocol.ModeSSH, Algorithm: cipher,
		Op: op, BlockSize: 64 << 20, Threads: 1, Repeat: repeat, Driver: neg, Count: 64 << 20, Timing: "wall",
		BytesPerSec: mbps * 1e6, CPUPct: boardCPU, Flags: flags}}
}

func rawPoint(run int64, board, mode, alg string, size int, mbps float64) store.Measurement {
	return store.Measurement{RunID: run, Board: board, Point: protocol.Point{Mode: mode, Algorithm: alg, Op: "encrypt",
		BlockSize: size, Threads: 1, BytesPerSec: mbps * 1e6, Timing: "wall", CPUPct: 99}}
}

// sshFixture: am64x measured directly with two repeats, one host-bound download, cpu and devcrypto raw points
// (two runs of cpu: the newer one counts); imx6q through a jump host, one cipher refused (absent), one failed
// upload, no raw points of chacha20.
func sshFixture() (ssh, raw []store.Measurement) {
	for r := range 2 {
		d := float64(r)
		ssh = append(ssh,
			sshPoint(7, "am64x", "aes128-ctr", "upload", r, 41.2+d, 97, 22),
			sshPoint(7, "am64x", "aes128-ctr", "download", r, 52.4-d, 99, 31),
			sshPoint(7, "am64x", "aes128-gcm@openssh.com", "upload", r, 60.5+d, 96, 35),
			sshPoint(7, "am64x", "aes128-gcm@openssh.com", "download", r, 88.1+d, 98, 91),
			sshPoint(7, "am64x", "chacha20-poly1305@openssh.com", "upload", r, 30.3, 100, 40),
			sshPoint(7, "am64x", "chacha20-poly1305@openssh.com", "download", r, 33.9, 100, 44),
		)
	}
	jump := protocol.FlagProxyJump + "root@10.0.0.1:22"
	failed := sshPoint(8, "imx6q", "aes128-ctr", "upload", 0, 0, 0, 0, jump)
	failed.Failed, failed.Error, failed.BytesPerSec, failed.Flags = true, "upload: after 1048576 of 67108864 bytes: connection lost", 0, []string{jump}
	ssh = append(ssh, failed,
		sshPoint(8, "imx6q", "aes128-ctr", "download", 0, 11.8, 100, 12, jump),
		sshPoint(8, "imx6q", "chacha20-poly1305@openssh.com", "upload", 0, 9.7, 100, 10, jump),
		sshPoint(8, "imx6q", "chacha20-poly1305@openssh.com", "download", 0, 10.2, 100, 11, jump),
	)
	raw = []store.Measurement{
		rawPoint(3, "am64x", "cpu", "aes-128-ctr", 16384, 150.0), // an older run: not used
		rawPoint(5, "am64x", "cpu", "aes-128-ctr", 1024, 301.0),
		rawPoint(5, "am64x", "cpu", "aes-128-ctr", 16384, 402.5),
		rawPoint(5, "am64x", "cpu", "aes-128-ctr", 16384, 398.5),
		rawPoint(5, "am64x", "devcrypto", "aes-128-gcm", 16384, 120.0),
		rawPoint(6, "imx6q", "cpu", "aes-128-ctr", 8192, 61.0),
		rawPoint(6, "imx6q", "soft", "aes-128-ctr", 16384, 20.0), // soft is not a raw speed to compare with
	}
	return ssh, raw
}

func TestSSHTableGolden(t *testing.T) {
	ssh, raw := sshFixture()
	c, err := CompareSSH(ssh, raw, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ format, ext string }{{"text", "txt"}, {"markdown", "md"}, {"csv", "csv"}, {"json", "json"}} {
		var b bytes.Buffer
		if err := WriteSSH(&b, c, f.format); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, "ssh_table."+f.ext+".golden", b.Bytes())
	}
}

// TestSSHRawRatio guards the figure the table exists for: SSH throughput over the raw cipher's, from the newest
// run's largest block size, cpu before devcrypto.
func TestSSHRawRatio(t *testing.T) {
	ssh, raw := sshFixture()
	c, err := CompareSSH(ssh, raw, CompareOptions{Boards: []string{"am64x"}})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Rows[0]
	if r.Cipher != "aes128-ctr" || r.Raw == nil || r.Raw.Mode != "cpu" || r.Raw.RunID != 5 || r.Raw.BlockSize != 16384 {
		t.Fatalf("row 0 = %s with raw %+v; want aes128-ctr against cpu aes-128-ctr of run 5 at 16384 B", r.Cipher, r.Raw)
	}
	if got, want := r.Raw.Median, 400.5e6; got != want {
		t.Errorf("raw median %v, want %v", got, want)
	}
	if got, want := sshReaches(r, "MB/s"), "am64x aes128-ctr: SSH reaches 10 % uploading and 13 % downloading of aes-128-ctr's raw speed (400.5 MB/s, cpu at 16384 B, run 5)."; got != want {
		t.Errorf("sentence\n got %s\nwant %s", got, want)
	}
	if g := c.Rows[1]; g.Raw == nil || g.Raw.Mode != "devcrypto" {
		t.Errorf("aes128-gcm raw = %+v, want devcrypto (no cpu point)", g.Raw)
	}
	if ch := c.Rows[2]; ch.Raw != nil {
		t.Errorf("chacha20 raw = %+v, want none", ch.Raw)
	}
}

func TestSSHTableNothing(t *testing.T) {
	_, raw := sshFixture()
	if _, err := CompareSSH(raw, nil, CompareOptions{}); !errors.Is(err, ErrNoMeasurements) {
		t.Errorf("CompareSSH without ssh points: %v, want ErrNoMeasurements", err)
	}
}

// TestSSHInHTMLReport: the report page draws mode ssh's points as the SSH table (the one of compare and the
// dashboard, in full), set against the raw cipher points, and not as an openssl chart of a 67108864 B
// "aes128-ctr"; the other points keep their comparison.
func TestSSHInHTMLReport(t *testing.T) {
	ssh, raw := sshFixture()
	var b bytes.Buffer
	if err := WriteHTML(&b, HTMLReport{Title: "t", Measurements: append(slices.Clone(raw), ssh...), Raw: raw}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	golden.Check(t, "ssh_report.html.golden", b.Bytes())
	for _, want := range []string{"<h2>SSH throughput</h2>", "<caption>SSH throughput per cipher (MB/s median; board CPU % of one core)</caption>",
		"<td>aes128-gcm@openssh.com</td>", "SSH reaches 10 % uploading and 13 % downloading of aes-128-ctr",
		"through the jump host(s) root@10.0.0.1:22", "<h2>Comparison</h2>", "<h3>aes-128-ctr</h3>"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"<h3>aes128-ctr</h3>", "<h3>chacha20-poly1305@openssh.com</h3>"} {
		if strings.Contains(page, bad) {
			t.Errorf("report draws ssh points as an openssl sweep: has %q", bad)
		}
	}
	// compare --format html: one page with both, as the report has them.
	v, err := NewCompareView(append(slices.Clone(raw), ssh...), raw, CompareOptions{}, FormatHTML)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteCompareView(&b, v, FormatHTML, Layout{}); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Count(page, "<html") != 1 || !strings.Contains(page, "SSH throughput per cipher") || !strings.Contains(page, "<h3>aes-128-ctr</h3>") {
		t.Errorf("compare --format html: want one page with both tables:\n%s", page)
	}
}
