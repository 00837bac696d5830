package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
)

// The simulated boards run in a process of their own, the board simulator (this program run as `overhead
// serve-boards`), so that the controller's CPU and the boards' are measured apart and, pinned to different CPUs,
// do not take each other's: with the boards inside the benchmark, 500 boards' SSH servers and shells competed
// with the controller for the same two cores and their cost was charged to the sweep's stretch. One process
// serves every board (one listener each), so 2,000 boards cost one process and its file descriptors, not
// 2,000 processes; each board's commands are still run by /bin/sh as on a board (board.go).
//
// The simulator and the benchmark speak JSON lines over the simulator's stdin and stdout: it prints one
// simReady when every board listens, then answers each "stat" line with a simStat; the end of its stdin stops
// every board and ends it.

// simReady is what the benchmark needs to write the inventory: the boards, the host key they show and the
// client key they accept.
type simReady struct {
	Names    []string `json:"names"`
	Ports    []int    `json:"ports"`
	HostKey  string   `json:"host_key"` // authorized_keys form
	Identity string   `json:"identity"` // the client's private key file
}

// simStat is the simulator's account so far: bytes the controller sent on the boards' session stdin, and the
// CPU time of the simulator itself and of the shells and agents it has reaped.
type simStat struct {
	Stdin       int64   `json:"stdin"`
	SelfCPU     float64 `json:"self_cpu_s"`
	ChildrenCPU float64 `json:"children_cpu_s"`
}

func (s simStat) cpu() float64 { return s.SelfCPU + s.ChildrenCPU }

// serveBoards is the simulator's main: `overhead serve-boards -n N -sweep S -dir DIR`.
func serveBoards(args []string) {
	fs := flag.NewFlagSet("serve-boards", flag.ExitOnError)
	n := fs.Int("n", 1, "number of boards")
	sweep := fs.Duration("sweep", time.Second, "sweep duration of every board")
	dir := fs.String("dir", "", "working directory: keys, and each board's HOME under boards/")
	profile := fs.String("cpuprofile", "", "write the simulator's CPU profile to this file")
	fs.Parse(args)
	if *n < 1 || *dir == "" || *sweep <= 0 {
		usagef("serve-boards: -n %d -dir %q -sweep %v: want a positive -n and -sweep and a -dir", *n, *dir, *sweep)
	}
	if err := raiseFileLimit(simFiles(*n)); err != nil {
		usagef("serve-boards: %v", err)
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fatalf("serve-boards: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatalf("serve-boards: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	k, err := newKeys(*dir)
	if err != nil {
		fatalf("serve-boards: keys: %v", err)
	}
	cfg := k.serverConfig()
	ready := simReady{HostKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k.host.PublicKey()))), Identity: k.identity}
	boards := make([]*fakeBoard, 0, *n)
	for i := range *n {
		name := fmt.Sprintf("sim%04d", i+1)
		b, err := startBoard(name, filepath.Join(*dir, "boards", name), cfg, *sweep)
		if err != nil {
			fatalf("serve-boards: start board %d: %v", i+1, err)
		}
		boards = append(boards, b)
		ready.Names, ready.Ports = append(ready.Names, name), append(ready.Ports, b.port())
	}
	out := json.NewEncoder(os.Stdout)
	if err := out.Encode(ready); err != nil {
		fatalf("serve-boards: %v", err)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if sc.Text() == "seed" {
			var reply struct {
				Seeded int    `json:"seeded"`
				Error  string `json:"error,omitempty"`
			}
			if reply.Seeded, err = seedAgents(boards); err != nil {
				reply.Error = err.Error()
			}
			if err := out.Encode(reply); err != nil {
				fatalf("serve-boards: %v", err)
			}
			continue
		}
		if sc.Text() != "stat" {
			fatalf("serve-boards: unknown request %q (want stat or seed)", sc.Text())
		}
		var st simStat
		for _, b := range boards {
			st.Stdin += b.bytesReceived()
		}
		st.SelfCPU, st.ChildrenCPU = rusageCPU(syscall.RUSAGE_SELF), rusageCPU(syscall.RUSAGE_CHILDREN)
		if err := out.Encode(st); err != nil {
			fatalf("serve-boards: %v", err)
		}
	}
	for _, b := range boards {
		b.close()
	}
	// Each board's HOME holds a copy of the agent: 3.3 MiB × 2,000 boards would fill /tmp over the rounds.
	os.RemoveAll(filepath.Join(*dir, "boards"))
}

func rusageCPU(who int) float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// simulator is the benchmark's handle on a running board simulator.
type simulator struct {
	simReady
	cmd *exec.Cmd
	in  io.WriteCloser
	out *json.Decoder
}

// startSimulator runs the board simulator with n boards under dir, on the CPUs cpus (taskset's list; "" for
// any), writing its CPU profile to profile unless that is empty, and waits until its boards listen.
func startSimulator(self, dir string, n int, sweep time.Duration, cpus, profile string) (*simulator, error) {
	argv := []string{self, "serve-boards", "-n", fmt.Sprint(n), "-sweep", sweep.String(), "-dir", dir}
	if profile != "" {
		argv = append(argv, "-cpuprofile", profile)
	}
	cmd := pinned(cpus, argv)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the board simulator: %w", err)
	}
	s := &simulator{cmd: cmd, in: in, out: json.NewDecoder(out)}
	if err := s.out.Decode(&s.simReady); err != nil {
		s.close()
		return nil, fmt.Errorf("board simulator with %d boards: %w", n, err)
	}
	if len(s.Ports) != n || len(s.Names) != n {
		s.close()
		return nil, fmt.Errorf("board simulator: %d boards ready, want %d", len(s.Ports), n)
	}
	return s, nil
}

// seed has the simulator give every board the agent deployed on the first (seedAgents).
func (s *simulator) seed() error {
	if _, err := io.WriteString(s.in, "seed\n"); err != nil {
		return fmt.Errorf("board simulator: %w", err)
	}
	var reply struct {
		Seeded int    `json:"seeded"`
		Error  string `json:"error"`
	}
	if err := s.out.Decode(&reply); err != nil {
		return fmt.Errorf("board simulator: %w", err)
	}
	if reply.Error != "" {
		return fmt.Errorf("board simulator: seed: %s", reply.Error)
	}
	if reply.Seeded != len(s.Names) {
		return fmt.Errorf("board simulator: seeded %d boards, want %d", reply.Seeded, len(s.Names))
	}
	return nil
}

// stat asks the simulator for its account so far.
func (s *simulator) stat() (simStat, error) {
	var st simStat
	if _, err := io.WriteString(s.in, "stat\n"); err != nil {
		return st, fmt.Errorf("board simulator: %w", err)
	}
	if err := s.out.Decode(&st); err != nil {
		return st, fmt.Errorf("board simulator: %w", err)
	}
	return st, nil
}

// close ends the simulator: the end of its stdin stops its boards.
func (s *simulator) close() error {
	s.in.Close()
	err := s.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("board simulator: %w", err)
	}
	return err
}

// pinned is the command argv, run on the CPUs of list through taskset when list is not empty: taskset sets the
// affinity before the program starts, so every thread of a Go program and every child it starts inherits it.
func pinned(list string, argv []string) *exec.Cmd {
	if list == "" {
		return exec.Command(argv[0], argv[1:]...)
	}
	return exec.Command("taskset", append([]string{"-c", list}, argv...)...)
}
