// Command overhead measures the controller's overhead (bench/README.md §b): how much longer than the sweep the
// real `fleet run` over N simulated boards takes (the stretch, (wall − sweep) / sweep), the controller's CPU per
// board and its peak RSS.
//
// Each simulated board is an SSH server on 127.0.0.1 (x/crypto/ssh) that runs whatever the controller sends in a
// real /bin/sh, with a HOME of its own (board.go): the deploy check, the push and its verification run as on a
// board. Every board lives in one board simulator process (this program run as `overhead serve-boards`,
// simproc.go), pinned to other CPUs than the controllers (-pin), so that the controllers' CPU and the boards'
// are measured apart. The agent the controller pushes is fakeagent (./fakeagent), padded to the size of the real
// agent: the deploy check verifies it with sha256sum and execs it, and it answers the probe and plays the sweep,
// the plan's points spread evenly over a fixed duration, without measuring. The fleet binary runs as a child
// process with --concurrency N, so every board sweeps at once and the ideal wall time is the sweep duration; its
// CPU time (user+sys, from GNU time) hardly depends on what else the machine is doing. For each N a fresh set of
// boards gets a cold run (the agent is pushed to every board) and a warm run (already there, 0 bytes pushed);
// rounds interleave the values of N. With -controllers K, K controllers run at once, each over its own N
// boards (tags c1 … cK), sharing one throwaway PostgreSQL database; the database's CPU, transactions, errors
// and what it stored are printed per phase.
//
//	go run ./bench/overhead -boards 50,500,2000 -sweep 36s -rounds 2
//	go run ./bench/overhead -boards 500 -controllers 4 -sweep 36s -rounds 1
//	go run ./bench/overhead -boards 2 -sweep 1s -rounds 1     # the smoke tests' runs (smoke_test.go)
//	go run ./bench/overhead -boards 2 -controllers 2 -sweep 1s -rounds 1
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/internal/buildtest"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve-boards" {
		serveBoards(os.Args[2:])
		return
	}
	boardsFlag := flag.String("boards", "1,10,50,200,500", "numbers of simulated boards (per controller), comma-separated")
	controllers := flag.Int("controllers", 1, "controllers sharing one throwaway PostgreSQL database, each over its own N boards (1: one controller, SQLite)")
	pin := flag.String("pin", "auto", "CPUs of the controllers and of the board simulator: auto (half each), off, or LIST/LIST as taskset -c takes them")
	sweep := flag.Duration("sweep", 36*time.Second, "duration of every simulated sweep (the figures of bench/README.md §b use 36s and 20s)")
	rounds := flag.Int("rounds", 3, "rounds; each runs every N once, cold then warm")
	fleetBin := flag.String("fleet", "", "fleet binary (default: built from ./cmd/fleet)")
	agentBin := flag.String("agent", "", "the real agent, whose size the fake agent pushed to the boards is padded to (default: built from ./cmd/fleet-agent)")
	keep := flag.Bool("keep", false, "keep the working directory (inventories, databases, controller logs)")
	env := flag.String("env", "", "extra environment for the controller, comma-separated NAME=VALUE (e.g. GOMEMLIMIT=150MiB)")
	var s setup
	flag.BoolVar(&s.knownHostsPerBoard, "knownhosts-per-board", false, "one known_hosts file per board instead of one for all")
	flag.StringVar(&s.heapProfile, "heapprofile", "", "instead of the warm run, run the controller's fleet.Run in this process and write the heap profile at its peak to this `FILE` (first N, one round)")
	cold := flag.Bool("cold", true, "run cold (the agent pushed to every board) before warm; false: deploy to the first board only and give every board that agent, then run warm")
	flag.StringVar(&s.simProfile, "simprofile", "", "write the board simulator's CPU profile to `FILE`.rR-nN (round R, N boards)")
	flag.Parse()
	s.noCold = !*cold
	if *env != "" {
		s.env = strings.Split(*env, ",")
	}
	ns := boardCounts(*boardsFlag)
	if *sweep <= 0 {
		usagef("-sweep: %v is not a positive duration", *sweep)
	}
	if *rounds < 1 {
		usagef("-rounds: %d, want at least 1", *rounds)
	}
	if *controllers < 1 || *controllers > 16 {
		usagef("-controllers: %d, want 1 to 16", *controllers)
	}
	if *controllers > 1 && s.heapProfile != "" {
		usagef("-heapprofile profiles one controller: not with -controllers %d", *controllers)
	}
	pinAndLimits(&s, *pin, slices.Max(ns), *controllers)
	var err error
	if s.self, err = os.Executable(); err != nil {
		fatalf("%v", err)
	}
	s.sweep, s.fleetBin = *sweep, *fleetBin
	if s.dir, err = os.MkdirTemp("", "fleet-bench-overhead-"); err != nil {
		fatalf("%v", err)
	}
	if !*keep {
		defer os.RemoveAll(s.dir)
	}
	s.agentBin = buildAll(&s, *agentBin)
	if *controllers > 1 {
		if s.pg, err = startPG(); err != nil {
			fatalf("%v", err)
		}
		defer s.pg.stop()
	}
	printHeader(&s, *controllers)
	failed := runRounds(&s, ns, *controllers, *rounds)
	if *keep {
		fmt.Println("\nkept", s.dir)
	}
	if failed {
		if s.pg != nil {
			s.pg.stop()
		}
		fatalf("some runs failed (see above)")
	}
}

// pinAndLimits splits the CPUs between the controllers and the board simulator as -pin says, and raises the
// file limit to what the most boards need; a value that cannot be met is a usage error.
func pinAndLimits(s *setup, pin string, most, controllers int) {
	var err error
	if s.ctlCPUs, s.simCPUs, err = cpuSplit(pin); err != nil {
		usagef("%v", err)
	}
	if s.ctlCPUs != "" {
		if _, err := exec.LookPath("taskset"); err != nil {
			usagef("-pin %s needs taskset (util-linux), not found: install it or give -pin off", pin)
		}
	}
	if err := raiseFileLimit(max(simFiles(most*controllers), controllerFiles(most))); err != nil {
		usagef("-boards %d -controllers %d: %v", most, controllers, err)
	}
}

// runRounds runs every board count once a round, printing each phase as it ends, then the medians; it reports
// whether any run failed.
func runRounds(s *setup, ns []int, controllers, rounds int) bool {
	results := map[int]map[string][]phase{}
	for r := 1; r <= rounds; r++ {
		for _, n := range ns {
			if results[n] == nil {
				results[n] = map[string][]phase{}
			}
			for _, p := range runN(s, n, controllers, r) {
				results[n][p.kind] = append(results[n][p.kind], p)
				printPhase(r, n, p, s.sweep)
			}
		}
	}
	return printMedians(ns, results, rounds, s.sweep)
}

// buildAll builds fleet unless -fleet named it, the real agent unless -agent named it, and the fake agent
// padded to the real agent's size, and returns the fake agent's path.
func buildAll(s *setup, agentBin string) string {
	if s.fleetBin == "" {
		s.fleetBin = filepath.Join(s.dir, "fleet")
		build(s.dir, nil, buildtest.StrippedFlags, module+"/cmd/fleet")
	}
	if agentBin == "" {
		agentBin = filepath.Join(s.dir, "fleet-agent")
		build(s.dir, buildtest.AgentEnv(), agent.BuildFlags, module+"/cmd/fleet-agent") // as the controller builds it
	}
	fake := filepath.Join(s.dir, "fakeagent")
	build(s.dir, buildtest.AgentEnv(), buildtest.StrippedFlags, module+"/bench/overhead/fakeagent")
	if err := padTo(fake, agentBin); err != nil {
		fatalf("fake agent: %v", err)
	}
	return fake
}

// boardCounts reads -boards: numbers of simulated boards from 1 to 5,000, comma-separated.
func boardCounts(list string) []int {
	var ns []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 5000 {
			usagef("-boards: %q is not a number of boards from 1 to 5000", s)
		}
		ns = append(ns, n)
	}
	return ns
}

// build builds pkg into dir with flags (buildtest.BuildWith), or ends the benchmark.
func build(dir string, env, flags []string, pkg string) {
	if err := buildtest.BuildWith(dir, env, flags, pkg); err != nil {
		fatalf("%v", err)
	}
}

// module is the import path of this module: the packages built are named by it, so that the benchmark runs from
// any directory of the module (its smoke test runs in bench/overhead).
const module = "github.com/fleetlab/fleet"

// padTo appends zero bytes to the executable at path up to the size of ref, so that pushing it costs what
// pushing ref does: the kernel loads an ELF by its program headers and ignores what follows them.
func padTo(path, ref string) error {
	fi, err := os.Stat(ref)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	cur, err := f.Seek(0, io.SeekEnd)
	if err == nil && cur < fi.Size() {
		err = f.Truncate(fi.Size())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func usagef(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench overhead: "+format+"\n", args...)
	os.Exit(2)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench overhead: "+format+"\n", args...)
	os.Exit(1)
}
