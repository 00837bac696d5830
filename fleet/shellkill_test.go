package fleet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// killedControllerEnv makes the test binary the controller of TestShellSessionKilledController: it starts a
// shell session on the local board with the named shell as sh and measures a long command until it is killed.
const killedControllerEnv = "FLEET_TEST_KILLED_CONTROLLER_SHELL"

// hungSeconds is the measured command's sleep: a length no other test uses, so that its process is this test's.
const hungSeconds = "4127"

// TestShellSessionKilledController: a controller killed with SIGKILL while its shell session runs a command
// (a hung driver: a wrapper running `sleep 4127`) leaves nothing on the board, under dash, BusyBox ash and bash:
// within a few seconds no process of the session's process group is left (not the command, not the wrapper's
// child, which outlived the command when only the command was killed, not the watchdog's sleep, which
// slept out its SECONDS before, 3600 here), and its /tmp directory is gone. The controller's mirror it could
// not remove goes at the next session's start.
func TestShellSessionKilledController(t *testing.T) {
	if shell := os.Getenv(killedControllerEnv); shell != "" {
		killedController(t, strings.Fields(shell))
		return
	}
	for _, shell := range []string{"dash", "busybox sh", "bash"} {
		t.Run(strings.Fields(shell)[0], func(t *testing.T) {
			if _, err := exec.LookPath(strings.Fields(shell)[0]); err != nil {
				t.Skipf("%s not installed", shell)
			}
			cache := t.TempDir()
			c := exec.Command(os.Args[0], "-test.run=^TestShellSessionKilledController$", "-test.timeout=2m")
			c.Env = append(os.Environ(), killedControllerEnv+"="+shell, "XDG_CACHE_HOME="+cache)
			out, err := c.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			c.Stderr = &stderr
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer c.Wait()
			defer c.Process.Kill()
			var boardDir, mirror string
			for sc := bufio.NewScanner(out); sc.Scan(); {
				if _, err := fmt.Sscanf(sc.Text(), "ready %s %s", &boardDir, &mirror); err == nil {
					break
				}
			}
			if mirror == "" {
				c.Wait()
				t.Fatalf("the controller did not start its session:\n%s", stderr.String())
			}
			// /tmp/fleet-sh.PID.NONCE: the session's shell leads its process group (the local transport's Setpgid)
			pgid, err := strconv.Atoi(strings.Split(strings.TrimPrefix(boardDir, "/tmp/fleet-sh."), ".")[0])
			if err != nil {
				t.Fatalf("session directory %q: %v", boardDir, err)
			}
			defer syscall.Kill(-pgid, syscall.SIGKILL)
			if !waitUntil(10*time.Second, func() bool { return len(groupProcesses(pgid, "sleep\x00"+hungSeconds+"\x00")) > 0 }) {
				t.Fatalf("the measured command never ran in process group %d:\n%s", pgid, stderr.String())
			}
			c.Process.Kill() // SIGKILL: the controller runs nothing more, only its pipes close
			c.Wait()
			if !waitUntil(5*time.Second, func() bool { return len(groupProcesses(pgid, "")) == 0 }) {
				t.Errorf("5 s after the controller was killed, the session's processes are left: %q", groupProcesses(pgid, ""))
			}
			if _, err := os.Stat(boardDir); !os.IsNotExist(err) {
				t.Errorf("the session's directory %s: %v, want it removed", boardDir, err)
			}
			if _, err := os.Stat(mirror); err != nil {
				t.Fatalf("the killed controller's mirror %s: %v (it cannot have removed it)", mirror, err)
			}
			t.Setenv("XDG_CACHE_HOME", cache)
			next, err := newShellMirror()
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(next)
			if _, err := os.Stat(mirror); !os.IsNotExist(err) {
				t.Errorf("the killed controller's mirror %s after the next session started: %v, want it removed", mirror, err)
			}
			if filepath.Dir(next) != filepath.Dir(mirror) {
				t.Errorf("the next mirror %s is not beside the first, %s", next, mirror)
			}
		})
	}
}

// killedController is the controller TestShellSessionKilledController kills: a session on the local board
// (its own process group) whose sh is shell, then a command that outlasts the test.
func killedController(t *testing.T, shell []string) {
	board := shellBoard(t, shell)
	t.Setenv("PATH", board.path)
	ctx := context.Background()
	s, err := startShell(ctx, NewLocal(), "test")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("ready %s %s\n", s.dir, s.mirror)
	// a wrapper whose child hangs, as an openssl wrapper script's: "; exit" keeps sh from exec'ing the sleep
	r := s.Measure(ctx, []string{"sh", "-c", "sleep " + hungSeconds + "; exit 0"}, nil)
	t.Fatalf("the measured command ended before the controller was killed: %+v", r)
}

// groupProcesses are the PIDs of process group pgid, of those whose command line is cmdline if it is not "".
func groupProcesses(pgid int, cmdline string) []string {
	var pids []string
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …: comm may hold spaces and parentheses, the last ')' ends it
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		dir := filepath.Dir(p)
		if cmdline != "" {
			if c, err := os.ReadFile(filepath.Join(dir, "cmdline")); err != nil || string(c) != cmdline {
				continue
			}
		}
		if f[0] != "Z" {
			pids = append(pids, filepath.Base(dir))
		}
	}
	return pids
}

// waitUntil polls cond every 50 ms until it holds or d has passed.
func waitUntil(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}
