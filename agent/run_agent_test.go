package agent

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/protocol"
)

// procStat is the part of /proc/PID/stat the tests need.
type procStat struct {
	pid, ppid, pgrp int
	comm, state     string
}

func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 3 {
		return procStat{}, false
	}
	ps := procStat{pid: pid, comm: s[open+1 : end], state: f[0]}
	ps.ppid, _ = strconv.Atoi(f[1])
	ps.pgrp, _ = strconv.Atoi(f[2])
	return ps, true
}

// liveProcs lists the processes that are not zombies and match keep.
func liveProcs(keep func(procStat) bool) []procStat {
	ents, _ := os.ReadDir("/proc")
	var out []procStat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ps, ok := readProcStat(pid); ok && ps.state != "Z" && keep(ps) {
			out = append(out, ps)
		}
	}
	return out
}

// vmHWMKiB reads the peak resident set of a process.
func vmHWMKiB(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kib, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kib
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestAgentExitsAndKillsChildren starts fleet-agent sweep with a long plan, waits for its openssl child, then
// hangs up stdin or sends a signal, and checks that the agent exits within 1 s and no process of the child's
// group survives. It also checks the agent's peak RSS while sweeping.
func TestAgentExitsAndKillsChildren(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent binary")
	}
	openssl := "openssl"
	if _, err := exec.LookPath(openssl); err != nil {
		t.Skipf("no openssl on this host: %v", err)
	}
	bin := buildtest.Agent(t, BuildFlags)
	const plan = `{"algorithms":["aes-128-cbc"],"modes":["cpu"],"sizes":[16],"seconds":30,"repeats":10}` + "\n"
	// with -multi, openssl forks workers: they are in the child's group and must die with it
	const multiPlan = `{"algorithms":["aes-128-cbc"],"modes":["cpu"],"sizes":[16],"seconds":30,"threads":2}` + "\n"
	closeStdin := func(_ *exec.Cmd, w io.WriteCloser) error { return w.Close() }
	signal := func(sig syscall.Signal) func(*exec.Cmd, io.WriteCloser) error {
		return func(c *exec.Cmd, _ io.WriteCloser) error { return c.Process.Signal(sig) }
	}
	for _, tc := range []struct {
		name, plan string
		stop       func(*exec.Cmd, io.WriteCloser) error
	}{
		{"stdin closed", plan, closeStdin},
		{"SIGTERM", plan, signal(syscall.SIGTERM)},
		{"SIGINT", plan, signal(syscall.SIGINT)},
		{"SIGHUP", plan, signal(syscall.SIGHUP)},
		{"stdin closed multi", multiPlan, closeStdin},
		{"SIGTERM multi", multiPlan, signal(syscall.SIGTERM)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(bin, "sweep")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var lines []string
			readDone := make(chan struct{})
			go func() {
				defer close(readDone)
				sc := bufio.NewScanner(stdout)
				sc.Buffer(make([]byte, 64<<10), protocol.MaxLineBytes)
				for sc.Scan() {
					mu.Lock()
					lines = append(lines, sc.Text())
					mu.Unlock()
				}
			}()
			t.Cleanup(func() { cmd.Process.Kill(); stdin.Close() })
			if _, err := io.WriteString(stdin, tc.plan); err != nil {
				t.Fatal(err)
			}
			agent := cmd.Process.Pid
			child := waitSpeedChild(t, agent)
			if child.pgrp != child.pid {
				t.Errorf("openssl child %d is in group %d, want its own group", child.pid, child.pgrp)
			}
			time.Sleep(200 * time.Millisecond) // let the sweep settle into measuring (and -multi fork its workers)
			group := liveProcs(func(p procStat) bool { return p.pgrp == child.pid })
			if strings.Contains(tc.plan, "threads") && len(group) < 3 {
				t.Errorf("openssl -multi 2 group has %d processes, want the parent and 2 workers: %+v", len(group), group)
			}
			if hwm := vmHWMKiB(t, agent); hwm >= 15*1024 {
				t.Errorf("agent peak RSS %d KiB while sweeping, want < 15 MiB", hwm)
			} else {
				t.Logf("agent peak RSS while sweeping: %d KiB", hwm)
			}

			start := time.Now()
			if err := tc.stop(cmd, stdin); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { <-readDone; waited <- cmd.Wait() }()
			select {
			case err := <-waited:
				if d := time.Since(start); d > time.Second {
					t.Errorf("agent took %v to exit, want < 1 s", d)
				} else {
					t.Logf("agent exited %v after being told to stop", d.Round(time.Millisecond))
				}
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Errorf("agent exit: %v, want exit status 1", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("agent still running 5 s after being told to stop")
			}
			// a SIGKILLed process on a busy machine can take a moment to finish exiting
			for deadline := time.Now().Add(500 * time.Millisecond); ; time.Sleep(10 * time.Millisecond) {
				left := liveProcs(func(p procStat) bool { return p.pgrp == child.pid || p.ppid == agent })
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", left[0].pid))
					t.Errorf("processes of the openssl group survive the agent by 500 ms: %+v\n%s", left, status)
					break
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if n := len(lines); n < 3 || !strings.Contains(lines[n-1], `"type":"done"`) || !strings.Contains(lines[n-2], `"type":"error"`) {
				t.Errorf("agent output should end with an error and done, got:\n%s", strings.Join(lines, "\n"))
			}
		})
	}
}

// waitSpeedChild waits for the agent's `openssl speed` child (the probe's openssl commands come first).
func waitSpeedChild(t *testing.T, agent int) procStat {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		kids := liveProcs(func(p procStat) bool {
			if p.ppid != agent || p.comm != "openssl" {
				return false
			}
			argv, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.pid))
			return strings.Contains(string(argv), "\x00speed\x00")
		})
		if len(kids) > 0 {
			return kids[0]
		}
		if time.Now().After(deadline) {
			t.Fatal("no openssl speed child of the agent within 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAgentKilledTakesChild: an agent killed with SIGKILL cannot clean up, so its child must die with it
// (Pdeathsig).
func TestAgentKilledTakesChild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent binary")
	}
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skipf("no openssl on this host: %v", err)
	}
	cmd := exec.Command(buildtest.Agent(t, BuildFlags), "sweep")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); stdin.Close(); cmd.Wait() })
	io.WriteString(stdin, `{"algorithms":["sha256"],"modes":["cpu"],"sizes":[16],"seconds":30}`+"\n")
	child := waitSpeedChild(t, cmd.Process.Pid)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	for deadline := time.Now().Add(time.Second); ; time.Sleep(10 * time.Millisecond) {
		if st, ok := readProcStat(child.pid); !ok || st.state == "Z" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("openssl %d outlived its SIGKILLed agent by 1 s", child.pid)
		}
	}
}
