// Command overhead measures the controller's overhead (bench/README.md §b): the wall time of the real `fleet run`
// over N simulated boards minus the sweep duration, and the controller's peak RSS.
//
// Each simulated board is an in-process SSH server on 127.0.0.1 (x/crypto/ssh) that runs whatever the controller
// sends in a real /bin/sh, with a HOME of its own under the working directory (board.go): the deploy check, the
// push and its verification run as on a board. The agent the controller pushes is fakeagent (./fakeagent), padded
// to the size of the real agent: the deploy check verifies it with sha256sum and execs it, and it answers the
// probe and plays the sweep, the plan's points spread evenly over a fixed duration, without measuring. The fleet
// binary runs as a child process with --concurrency N, so every board sweeps at once and the ideal wall time is
// the sweep duration. The controller's CPU time (user+sys, from GNU time) is printed too: unlike the wall time it
// hardly depends on what else the machine is doing. For each N a fresh set of boards gets a cold run (the agent
// is pushed to every board) and a warm run (already there, 0 bytes pushed); rounds interleave the values of N.
//
//	go run ./bench/overhead -boards 1,10,50,200,500 -sweep 36s -rounds 3
//	go run ./bench/overhead -boards 2 -sweep 1s -rounds 1     # the smoke test's run (smoke_test.go)
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/agent"
	"github.com/fleetlab/fleet/bench/internal/machine"
	"github.com/fleetlab/fleet/internal/buildtest"
)

func main() {
	boardsFlag := flag.String("boards", "1,10,50,200,500", "numbers of simulated boards, comma-separated")
	sweep := flag.Duration("sweep", 36*time.Second, "duration of every simulated sweep (the figures of bench/README.md §b use 36s and 20s)")
	rounds := flag.Int("rounds", 3, "rounds; each runs every N once, cold then warm")
	fleetBin := flag.String("fleet", "", "fleet binary (default: built from ./cmd/fleet)")
	agentBin := flag.String("agent", "", "the real agent, whose size the fake agent pushed to the boards is padded to (default: built from ./cmd/fleet-agent)")
	keep := flag.Bool("keep", false, "keep the working directory (inventories, databases, controller logs)")
	env := flag.String("env", "", "extra environment for the controller, comma-separated NAME=VALUE (e.g. GOMEMLIMIT=150MiB)")
	flag.BoolVar(&knownHostsPerBoard, "knownhosts-per-board", false, "one known_hosts file per board instead of one for all")
	flag.StringVar(&heapProfile, "heapprofile", "", "instead of the warm run, run the controller's fleet.Run in this process and write the heap profile at its peak to this `FILE` (first N, one round)")
	flag.Parse()
	if *env != "" {
		extraEnv = strings.Split(*env, ",")
	}
	ns := boardCounts(*boardsFlag)
	if *sweep <= 0 {
		usagef("-sweep: %v is not a positive duration", *sweep)
	}
	if *rounds < 1 {
		usagef("-rounds: %d, want at least 1", *rounds)
	}
	dir, err := os.MkdirTemp("", "fleet-bench-overhead-")
	if err != nil {
		fatalf("%v", err)
	}
	if !*keep {
		defer os.RemoveAll(dir)
	}
	if *fleetBin == "" {
		*fleetBin = filepath.Join(dir, "fleet")
		build(dir, nil, buildtest.StrippedFlags, module+"/cmd/fleet")
	}
	if *agentBin == "" {
		*agentBin = filepath.Join(dir, "fleet-agent")
		build(dir, buildtest.AgentEnv(), agent.BuildFlags, module+"/cmd/fleet-agent") // as the controller builds it
	}
	fake := filepath.Join(dir, "fakeagent")
	build(dir, buildtest.AgentEnv(), buildtest.StrippedFlags, module+"/bench/overhead/fakeagent")
	if err := padTo(fake, *agentBin); err != nil {
		fatalf("fake agent: %v", err)
	}
	keys, err := newKeys(dir)
	if err != nil {
		fatalf("keys: %v", err)
	}
	fmt.Println(machine.Describe())
	fmt.Printf("sweep duration per board: %v (quick profile: 2 algorithms x 6 sizes x the fake agent's 2 modes = 24 points)\n", *sweep)
	fmt.Printf("boards: /bin/sh over in-process SSH servers; the agent pushed is fakeagent padded to %s's size\n\n", filepath.Base(*agentBin))
	fmt.Printf("%-5s %-5s %-4s %9s %9s %7s %9s %8s %11s\n", "round", "N", "run", "wall_s", "overhead", "ovh_%", "rss_MiB", "cpu_s", "pushed_MiB")

	results := map[int]map[string][]sample{}
	for r := 1; r <= *rounds; r++ {
		for _, n := range ns {
			if results[n] == nil {
				results[n] = map[string][]sample{}
			}
			for _, s := range runN(dir, keys, *fleetBin, fake, n, *sweep, r) {
				results[n][s.kind] = append(results[n][s.kind], s)
				fmt.Printf("%-5d %-5d %-4s %9.2f %9.2f %7.2f %9.1f %8.2f %11.1f\n", r, n, s.kind, s.wall.Seconds(),
					(s.wall - *sweep).Seconds(), 100*(s.wall-*sweep).Seconds()/sweep.Seconds(), s.rssMiB, s.cpu, float64(s.pushed)/(1<<20))
			}
		}
	}
	printMedians(ns, results, *rounds, *sweep)
	if *keep {
		fmt.Println("\nkept", dir)
	}
}

// boardCounts reads -boards: numbers of simulated boards from 1 to 999, comma-separated.
func boardCounts(list string) []int {
	var ns []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 999 {
			usagef("-boards: %q is not a number of boards from 1 to 999", s)
		}
		ns = append(ns, n)
	}
	return ns
}

// printMedians is the table of medians over the rounds, warm beside cold, per number of boards.
func printMedians(ns []int, results map[int]map[string][]sample, rounds int, sweep time.Duration) {
	fmt.Printf("\nmedians over %d rounds (overhead = wall - %v; %% of the sweep duration)\n", rounds, sweep)
	fmt.Printf("%-5s | %-36s | %-36s\n", "", "warm (agent already there)", "cold (first deployment)")
	fmt.Printf("%-5s | %8s %7s %11s %7s | %8s %7s %11s %7s\n", "N", "ovh_s", "ovh_%", "max_rss_MiB", "cpu_s", "ovh_s", "ovh_%", "max_rss_MiB", "cpu_s")
	for _, n := range ns {
		w, c := summarize(results[n]["warm"], sweep), summarize(results[n]["cold"], sweep)
		fmt.Printf("%-5d | %8.2f %7.2f %11.1f %7.2f | %8.2f %7.2f %11.1f %7.2f\n", n, w.ovh, w.pct, w.rss, w.cpu, c.ovh, c.pct, c.rss, c.cpu)
	}
}

type summary struct{ ovh, pct, rss, cpu float64 } // medians, but rss is the maximum

func summarize(ss []sample, sweep time.Duration) summary {
	if len(ss) == 0 {
		return summary{}
	}
	var ovh, cpu []float64
	var rss float64
	for _, s := range ss {
		ovh = append(ovh, (s.wall - sweep).Seconds())
		cpu = append(cpu, s.cpu)
		rss = max(rss, s.rssMiB)
	}
	m := median(ovh)
	return summary{ovh: m, pct: 100 * m / sweep.Seconds(), rss: rss, cpu: median(cpu)}
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
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
