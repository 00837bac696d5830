package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/fleetlab/fleet/bench/internal/machine"
)

// pointsPerBoard is what one board's run stores: the quick profile's 2 algorithms × 6 sizes in the fake
// agent's 2 modes.
const pointsPerBoard = 24

func printHeader(s *setup, k int) {
	fmt.Println(machine.Describe())
	fmt.Printf("sweep duration per board: %v (quick profile: 2 algorithms x 6 sizes x the fake agent's 2 modes = %d points)\n",
		s.sweep, pointsPerBoard)
	size := "?"
	if fi, err := os.Stat(s.agentBin); err == nil {
		size = fmt.Sprintf("%.1f MiB", float64(fi.Size())/(1<<20))
	}
	fmt.Printf("boards: /bin/sh (SCHED_IDLE) over SSH servers in one board simulator process; the agent pushed is fakeagent padded to the real agent's size, %s\n",
		size)
	pin := "not pinned"
	if s.ctlCPUs != "" {
		pin = fmt.Sprintf("controllers on CPU %s, board simulator on CPU %s (taskset -c)", s.ctlCPUs, s.simCPUs)
	}
	fmt.Println("pinning:", pin)
	if k > 1 {
		fmt.Printf("controllers: %d at once, each over its own boards (--tag cC), one PostgreSQL %s database (not pinned)\n",
			k, s.pg.srv.Version())
	} else {
		fmt.Println("controllers: 1, SQLite")
	}
	fmt.Println("stretch = (wall - sweep) / sweep; cpu = the controller's user+sys (GNU time); ms/board = cpu / N")
	fmt.Printf("\n%-5s %-5s %-3s %-4s %9s %9s %9s %8s %9s %s\n", "round", "N", "ctl", "run", "wall_s", "stretch_%",
		"rss_MiB", "cpu_s", "ms/board", "status")
}

func stretch(wall, sweep time.Duration) float64 {
	return 100 * (wall - sweep).Seconds() / sweep.Seconds()
}

// printPhase prints a row per controller of phase p, then the boards' and the database's part.
func printPhase(round, n int, p phase, sweep time.Duration) {
	for _, s := range p.runs {
		status := "ok"
		if s.err != nil {
			status = fmt.Sprintf("failed: %d of %d boards lost, %v", s.lost, n, s.err)
		}
		if s.leaseWaits > 0 {
			status += fmt.Sprintf(", waited %d times for a lease", s.leaseWaits)
		}
		fmt.Printf("%-5d %-5d %-3d %-4s %9.2f %9.2f %9.1f %8.2f %9.2f %s\n", round, n, s.controller, p.kind,
			s.wall.Seconds(), stretch(s.wall, sweep), s.rssMiB, s.cpu, 1000*s.cpu/float64(n), status)
	}
	fmt.Printf("      boards (simulator): cpu %.2f s (its shells and agents %.2f s), pushed %.1f MiB\n", p.boardsCPU,
		p.shellsCPU, float64(p.pushed)/(1<<20))
	if d := p.db; d != nil {
		fmt.Printf("      database: cpu %.2f s, %d commits, %d rollbacks, %d deadlocks, %d errors logged; "+
			"%d points stored (want %d), %d board runs, %d leases held at the end\n", d.cpu, d.commits, d.rollbacks,
			d.deadlocks, d.errors, d.points, int64(len(p.runs)*n*pointsPerBoard), d.boardRuns, d.leasesHeld)
	}
}

// printMedians is the table of medians over the rounds per number of boards and controller, warm beside cold,
// and says whether any run failed.
func printMedians(ns []int, results map[int]map[string][]phase, rounds int, sweep time.Duration) (failed bool) {
	fmt.Printf("\nmedians over %d rounds (stretch = (wall - %v) / %v; cpu and ms/board the controller's; boards_s the simulator's cpu)\n",
		rounds, sweep, sweep)
	fmt.Printf("%-5s %-3s | %-43s | %-43s\n", "", "", "warm (agent already there)", "cold (first deployment)")
	fmt.Printf("%-5s %-3s | %9s %8s %7s %8s %8s | %9s %8s %7s %8s %8s\n", "N", "ctl",
		"stretch_%", "max_rss", "cpu_s", "ms/board", "boards_s", "stretch_%", "max_rss", "cpu_s", "ms/board", "boards_s")
	for _, n := range ns {
		warm, cold := results[n]["warm"], results[n]["cold"]
		if len(warm) == 0 {
			continue // -heapprofile: no timed runs
		}
		for c := range len(warm[0].runs) {
			w, wf := summarize(warm, c, sweep)
			k, kf := summarize(cold, c, sweep)
			failed = failed || wf || kf
			fmt.Printf("%-5d %-3d | %9.2f %8.1f %7.2f %8.2f %8.2f | %9.2f %8.1f %7.2f %8.2f %8.2f\n", n, c+1,
				w.pct, w.rss, w.cpu, 1000*w.cpu/float64(n), w.boards, k.pct, k.rss, k.cpu, 1000*k.cpu/float64(n), k.boards)
		}
	}
	return failed
}

type summary struct{ pct, rss, cpu, boards float64 } // medians, but rss is the maximum

// summarize is controller c's summary over the phases, and whether any of its runs failed.
func summarize(ps []phase, c int, sweep time.Duration) (summary, bool) {
	if len(ps) == 0 {
		return summary{}, false // -cold=false
	}
	var pct, cpu, boards []float64
	var rss float64
	failed := false
	for _, p := range ps {
		s := p.runs[c]
		failed = failed || s.err != nil
		pct = append(pct, stretch(s.wall, sweep))
		cpu = append(cpu, s.cpu)
		boards = append(boards, p.boardsCPU)
		rss = max(rss, s.rssMiB)
	}
	return summary{pct: median(pct), rss: rss, cpu: median(cpu), boards: median(boards)}, failed
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
