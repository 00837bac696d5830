// Command overhead measures the controller's overhead (bench/README.md §b): the wall time of the real `fleet run`
// over N simulated boards minus the sweep duration, and the controller's peak RSS.
//
// Each simulated board is an in-process SSH server on 127.0.0.1 (x/crypto/ssh) that answers the deploy commands
// and plays the agent without starting any process: `probe` prints hello, facts and done; `sweep` reads the plan,
// then prints the quick profile's points spread evenly over a fixed duration. The fleet binary runs as a child
// process with --concurrency N, so every board sweeps at once and the ideal wall time is the sweep duration.
// The controller's CPU time (user+sys, from GNU time) is printed too: unlike the wall time it hardly depends on
// what else the machine is doing. For each N a fresh set of boards gets a cold run (the agent is pushed to every board) and a warm run (already
// there, 0 bytes pushed); rounds interleave the values of N.
//
//	go run ./bench/overhead -boards 1,10,50,200,500 -sweep 36s -rounds 3
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/bench/internal/machine"
)

func main() {
	boardsFlag := flag.String("boards", "1,10,50,200,500", "numbers of simulated boards, comma-separated")
	sweep := flag.Duration("sweep", 36*time.Second, "duration of every simulated sweep (the quick profile: 36 points of 1 s)")
	rounds := flag.Int("rounds", 3, "rounds; each runs every N once, cold then warm")
	fleetBin := flag.String("fleet", "", "fleet binary (default: built from ./cmd/fleet)")
	agentBin := flag.String("agent", "", "agent binary pushed to the boards (default: built from ./cmd/fleet-agent for linux/amd64)")
	keep := flag.Bool("keep", false, "keep the working directory (inventories, databases, controller logs)")
	env := flag.String("env", "", "extra environment for the controller, comma-separated NAME=VALUE (e.g. GOMEMLIMIT=150MiB)")
	flag.BoolVar(&knownHostsPerBoard, "knownhosts-per-board", false, "one known_hosts file per board instead of one for all")
	flag.StringVar(&heapProfile, "heapprofile", "", "instead of the warm run, run the controller's fleet.Run in this process and write the heap profile at its peak to this `FILE` (first N, one round)")
	flag.Parse()
	if *env != "" {
		extraEnv = strings.Split(*env, ",")
	}
	var ns []int
	for _, s := range strings.Split(*boardsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("-boards: %q is not a number of boards", s)
		}
		ns = append(ns, n)
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
		build(*fleetBin, "./cmd/fleet", nil)
	}
	if *agentBin == "" {
		*agentBin = filepath.Join(dir, "fleet-agent")
		build(*agentBin, "./cmd/fleet-agent", []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64"}, "-trimpath", "-ldflags=-s -w")
	}
	keys, err := newKeys(dir)
	if err != nil {
		fatalf("keys: %v", err)
	}
	fmt.Println(machine.Describe())
	fmt.Printf("sweep duration per board: %v (quick profile: 3 algorithms x 2 modes x 6 sizes = 36 points)\n\n", *sweep)
	fmt.Printf("%-5s %-5s %-4s %9s %9s %7s %9s %8s %11s\n", "round", "N", "run", "wall_s", "overhead", "ovh_%", "rss_MiB", "cpu_s", "pushed_MiB")

	results := map[int]map[string][]sample{}
	for r := 1; r <= *rounds; r++ {
		for _, n := range ns {
			if results[n] == nil {
				results[n] = map[string][]sample{}
			}
			for _, s := range runN(dir, keys, *fleetBin, *agentBin, n, *sweep, r) {
				results[n][s.kind] = append(results[n][s.kind], s)
				fmt.Printf("%-5d %-5d %-4s %9.2f %9.2f %7.2f %9.1f %8.2f %11.1f\n", r, n, s.kind, s.wall.Seconds(),
					(s.wall - *sweep).Seconds(), 100*(s.wall-*sweep).Seconds()/sweep.Seconds(), s.rssMiB, s.cpu, float64(s.pushed)/(1<<20))
			}
		}
	}
	fmt.Printf("\nmedians over %d rounds (overhead = wall - %v; %% of the sweep duration)\n", *rounds, *sweep)
	fmt.Printf("%-5s | %-36s | %-36s\n", "", "warm (agent already there)", "cold (first deployment)")
	fmt.Printf("%-5s | %8s %7s %11s %7s | %8s %7s %11s %7s\n", "N", "ovh_s", "ovh_%", "max_rss_MiB", "cpu_s", "ovh_s", "ovh_%", "max_rss_MiB", "cpu_s")
	for _, n := range ns {
		w, c := summarize(results[n]["warm"], *sweep), summarize(results[n]["cold"], *sweep)
		fmt.Printf("%-5d | %8.2f %7.2f %11.1f %7.2f | %8.2f %7.2f %11.1f %7.2f\n", n, w.ovh, w.pct, w.rss, w.cpu, c.ovh, c.pct, c.rss, c.cpu)
	}
	if *keep {
		fmt.Println("\nkept", dir)
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

func build(out, pkg string, env []string, args ...string) {
	cmd := exec.Command("go", append(append([]string{"build", "-o", out}, args...), pkg)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fatalf("go build %s: %v", pkg, err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench overhead: "+format+"\n", args...)
	os.Exit(1)
}
