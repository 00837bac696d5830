package lab_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/buildtest"
)

// showJSON is the part of `fleet show --format json` the kernel test checks.
type showJSON struct {
	BoardRuns []struct {
		Board  string `json:"board"`
		Status string `json:"status"`
		Error  string `json:"error"`
		Points int    `json:"points"`
		Facts  *struct {
			BootID string `json:"boot_id"`
		} `json:"facts"`
		Skips []struct {
			Mode, Algorithm, Reason string
		} `json:"skips"`
		Kernel *struct {
			Health string `json:"health"`
			Source string `json:"source"`
			Lines  []struct {
				Text, Pattern, During string
			} `json:"lines"`
			Reboot *struct {
				During     string `json:"during"`
				BootBefore string `json:"boot_before"`
				BootAfter  string `json:"boot_after"`
				Panic      string `json:"panic"`
			} `json:"reboot"`
		} `json:"kernel"`
	} `json:"board_runs"`
}

// TestLabKernelCrash panics qemu-arm64 in the middle of a sweep, as a driver bug would: `echo c >
// /proc/sysrq-trigger` over a second SSH session. The lab's boards reboot on a panic like a board with a watchdog
// and keep the panic in ramoops; with --reconnect-wait the run must record the reboot with both boot ids and the
// panic text, store the point in flight as lost, leave out its mode and algorithm and measure the rest. Before the
// crash `echo h` prints sysrq's help, a real kernel line that the board's kernel_log pattern must catch.
func TestLabKernelCrash(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	root, lab, runDir, env := labPaths(t, "qemu-arm64")
	tmp := t.TempDir()
	fleetBin := buildtest.BinaryIn(t, tmp, buildtest.Module+"/cmd/fleet")
	db := filepath.Join(tmp, "crash.db")
	mustRun(t, ctx, env, root, lab, "build")
	t.Cleanup(func() {
		down, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := command(t, down, env, root, lab, "down"); err != nil {
			t.Errorf("lab down: %v", err)
		}
	})
	mustRun(t, ctx, env, root, lab, "up")
	labInv, err := os.ReadFile(filepath.Join(runDir, "boards.toml"))
	if err != nil {
		t.Fatal(err)
	}
	inv := filepath.Join(tmp, "boards.toml")
	extra := "\n[boards.qemu-arm64.kernel_log]\npatterns = [\"^sysrq: HELP\"]\n"
	if err := os.WriteFile(inv, append(labInv, extra...), 0o600); err != nil {
		t.Fatal(err)
	}

	run := exec.CommandContext(ctx, fleetBin, "--inventory", inv, "--db", db, "run", "--boards", "qemu-arm64",
		"--modes", "cpu,afalg,kcapi", "--algorithms", "aes-128-cbc,aes-256-cbc,sha256", "--sizes", "16,1024,8192",
		"--seconds", "1", "--reconnect-wait", "4m")
	run.Dir = root
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()

	show := func() showJSON {
		t.Helper()
		cmd := exec.CommandContext(ctx, fleetBin, "--db", db, "show", "latest", "--format", "json")
		out, err := cmd.Output()
		var s showJSON
		if err == nil {
			err = json.Unmarshal(out, &s)
		}
		if err != nil || len(s.BoardRuns) == 0 {
			return showJSON{}
		}
		return s
	}
	points := func() int {
		if s := show(); len(s.BoardRuns) > 0 {
			return s.BoardRuns[0].Points
		}
		return 0
	}
	// waitPoints waits for n points stored, or the run's end (a failure then).
	waitPoints := func(n int) int {
		t.Helper()
		for {
			if got := points(); got >= n {
				return got
			}
			select {
			case err := <-exited:
				t.Fatalf("fleet run ended (%v) before %d points were stored\n%s%s", err, n, stdout.String(), stderr.String())
			case <-time.After(time.Second):
			}
		}
	}
	sysrq := func(key string, timeout time.Duration) {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		// The panic takes the session with it: its error is expected, the reboot is what the run must see.
		_, err := command(t, c, env, root, lab, "ssh", "qemu-arm64", "echo "+key+" > /proc/sysrq-trigger")
		t.Logf("sysrq %s: %v", key, err)
	}
	waitPoints(3)
	sysrq("h", time.Minute)
	before := waitPoints(7)
	sysrq("c", 20*time.Second)
	var runErr error
	select {
	case runErr = <-exited:
	case <-ctx.Done():
		t.Fatalf("fleet run did not end: %v\n%s", ctx.Err(), stderr.String())
	}
	t.Logf("$ fleet run (crashed after %d points): %v\n%s%s", before, runErr, stdout.String(), stderr.String())
	// A reboot fails the board whatever was measured: the nightly must not stay green.
	if runErr == nil {
		t.Errorf("fleet run exited 0 after the board rebooted under it")
	}

	s := show()
	if len(s.BoardRuns) != 1 {
		t.Fatalf("show: want 1 board run, got %+v", s)
	}
	br := s.BoardRuns[0]
	k := br.Kernel
	if k == nil || k.Reboot == nil {
		t.Fatalf("show: no reboot recorded: %+v (error %q)", k, br.Error)
	}
	if r := k.Reboot; r.BootBefore == "" || r.BootAfter == "" || r.BootBefore == r.BootAfter {
		t.Errorf("reboot boot ids = %q → %q, want two different ids", r.BootBefore, r.BootAfter)
	}
	if br.Facts == nil || br.Facts.BootID != k.Reboot.BootBefore {
		t.Errorf("facts boot id %+v, want the boot before the crash %q", br.Facts, k.Reboot.BootBefore)
	}
	if !strings.Contains(k.Reboot.Panic, "sysrq triggered crash") {
		t.Errorf("reboot panic = %q, want the panic ramoops kept (\"sysrq triggered crash\")", k.Reboot.Panic)
	}
	if k.Source != "/dev/kmsg" || k.Health != "problems" {
		t.Errorf("kernel health %q from %q, want problems from /dev/kmsg", k.Health, k.Source)
	}
	var help bool
	for _, l := range k.Lines {
		help = help || (l.Pattern == "^sysrq: HELP" && strings.HasPrefix(l.Text, "sysrq: HELP"))
	}
	if !help {
		t.Errorf("kernel lines %+v: none is sysrq's help matched by the board's pattern", k.Lines)
	}
	if !strings.Contains(br.Error, "rebooted during "+k.Reboot.During) || br.Status != "failed" {
		t.Errorf("board %s: %q, want failed with \"rebooted during %s\"", br.Status, br.Error, k.Reboot.During)
	}
	var leftOut bool
	for _, sk := range br.Skips {
		leftOut = leftOut || strings.HasPrefix(sk.Reason, "left out: the board was lost during "+k.Reboot.During)
	}
	if !leftOut {
		t.Errorf("skips %+v: the lost mode and algorithm are not left out", br.Skips)
	}

	var pts []point
	out := mustRun(t, ctx, nil, root, fleetBin, "--db", db, "results", "--format", "json")
	if err := json.Unmarshal([]byte(out), &pts); err != nil {
		t.Fatalf("results: %v", err)
	}
	good, lost := 0, 0
	for _, p := range pts {
		switch {
		case p.Failed && strings.HasPrefix(p.Error, "board lost during "):
			lost++
			if want := k.Reboot.During; !strings.HasPrefix(want, p.Mode+" "+p.Algorithm) {
				t.Errorf("lost point %s %s, want the job in flight %q", p.Mode, p.Algorithm, want)
			}
		case !p.Failed:
			good++
		}
	}
	if lost != 1 {
		t.Errorf("%d points stored as lost, want 1", lost)
	}
	// The sweep went on after the reboot: more good points than there were when the board crashed.
	if good <= before {
		t.Errorf("%d good points after the run, %d before the crash: nothing was measured after the reboot", good, before)
	}
}
