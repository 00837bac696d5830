package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// setup is what every run of the benchmark shares, from the flags.
type setup struct {
	dir      string // the benchmark's working directory
	self     string // this program, run again as the board simulator
	fleetBin string
	agentBin string // the fake agent the controllers push
	sweep    time.Duration
	ctlCPUs  string   // taskset lists: the controllers'
	simCPUs  string   // and the board simulator's ("" for any CPU)
	env      []string // -env: added to the controllers' environment, e.g. GOMEMLIMIT=150MiB
	// knownHostsPerBoard (-knownhosts-per-board) gives each board a known_hosts file of its own line instead of
	// one file listing every board, to show what parsing the whole file for each connection costs.
	knownHostsPerBoard bool
	heapProfile        string // -heapprofile: after the cold run, run the warm one in this process and profile its heap
	simProfile         string // -simprofile: the board simulator's CPU profile, one file per round and N
	// noCold (-cold=false) skips the cold run: the agent is deployed to the first board and given to the others
	// (seedAgents), so that the warm run is of warm boards however many there are.
	noCold bool
	pg     *pgServer
}

// sample is one `fleet run`: one controller's share of a phase.
type sample struct {
	controller int // 1 … -controllers
	wall       time.Duration
	rssMiB     float64
	cpu        float64 // the controller's user+sys seconds: its cost whatever the load
	leaseWaits int     // lines of the controller's log saying it waits for another run's lease
	lost       int     // boards the run's summary table says failed
	err        error   // the run failed (its boards' errors are in its log)
}

// phase is the cold or the warm run of every controller at once over their boards.
type phase struct {
	kind      string // cold or warm
	runs      []sample
	pushed    int64   // bytes the boards received on session stdin: the agent pushed, requests and plans
	boardsCPU float64 // the board simulator's CPU during the phase, its shells' and agents' included
	shellsCPU float64 // of which its shells' and agents' (the processes it reaped)
	db        *dbDelta
}

// runN starts k×n boards in the board simulator, runs k controllers over n boards each twice (cold, then warm)
// and stops the boards.
func runN(s *setup, n, k, round int) []phase {
	work := filepath.Join(s.dir, fmt.Sprintf("r%d-n%d", round, n))
	if err := os.MkdirAll(filepath.Join(work, "home"), 0o755); err != nil {
		fatalf("%v", err)
	}
	profile := ""
	if s.simProfile != "" {
		profile = fmt.Sprintf("%s.r%d-n%d", s.simProfile, round, n)
	}
	sim, err := startSimulator(s.self, work, n*k, s.sweep, s.simCPUs, profile)
	if err != nil {
		fatalf("%v", err)
	}
	defer sim.close() // removes the boards' HOMEs (each holds a copy of the agent)
	inv := writeInventory(s, work, sim, n, k)
	dbs := make([]string, k)
	for c := range dbs {
		dbs[c] = filepath.Join(work, fmt.Sprintf("c%d.db", c+1))
	}
	if s.pg != nil {
		dsn, err := s.pg.database(fmt.Sprintf("overhead_r%d_n%d", round, n))
		if err != nil {
			sim.close()
			fatalf("%v", err)
		}
		for c := range dbs {
			dbs[c] = dsn
		}
		// Once, before the controllers start, as a lab would after an upgrade (docs/shared-database.md).
		if out, err := exec.Command(s.fleetBin, "--db", dsn, "db", "migrate").CombinedOutput(); err != nil {
			sim.close()
			fatalf("fleet db migrate: %v\n%s", err, out)
		}
	}
	if s.heapProfile != "" {
		if smp := runFleets(s, work, "cold", inv, dbs, n)[0]; smp.err != nil {
			sim.close()
			fatalf("%v", smp.err)
		}
		profileRun(work, inv, s.agentBin, n, s.heapProfile)
		return nil
	}
	kinds := []string{"cold", "warm"}
	if s.noCold {
		kinds = kinds[1:]
		seed(s, work, inv, sim)
	}
	var out []phase
	for _, kind := range kinds {
		before, err := sim.stat()
		if err != nil {
			fatalf("%v", err)
		}
		var db0 dbStat
		if s.pg != nil {
			db0 = s.pg.stat(dbs[0])
		}
		p := phase{kind: kind, runs: runFleets(s, work, kind, inv, dbs, n)}
		after, err := sim.stat()
		if err != nil {
			fatalf("%v", err)
		}
		p.pushed, p.boardsCPU = after.Stdin-before.Stdin, after.cpu()-before.cpu()
		p.shellsCPU = after.ChildrenCPU - before.ChildrenCPU
		if s.pg != nil {
			d := s.pg.stat(dbs[0]).since(db0)
			p.db = &d
		}
		out = append(out, p)
	}
	return out
}

// seed deploys the agent to the first board with `fleet boards check` (the controller's own deployment) and has
// the simulator give it to every other board.
func seed(s *setup, work, inv string, sim *simulator) {
	cmd := exec.Command(s.fleetBin, "--inventory", inv, "boards", "check", "--boards", sim.Names[0], "--agent", s.agentBin,
		"--db", filepath.Join(work, "seed.db"))
	cmd.Env = controllerEnv(filepath.Join(work, "home"), s.env)
	if out, err := cmd.CombinedOutput(); err != nil {
		sim.close()
		fatalf("deploy the agent to %s: %v\n%s", sim.Names[0], err, out)
	}
	if err := sim.seed(); err != nil {
		sim.close()
		fatalf("%v", err)
	}
}

// writeInventory writes boards.toml and known_hosts for the simulator's boards: controller c (1 … k) has the
// boards tagged cC, n of them; every board is tagged sim.
func writeInventory(s *setup, work string, sim *simulator, n, k int) string {
	knownHosts := filepath.Join(work, "known_hosts")
	var inv, kh strings.Builder
	inv.WriteString("[defaults]\nuser = \"root\"\nidentity_file = " + strconv.Quote(sim.Identity) +
		"\nknown_hosts = " + strconv.Quote(knownHosts) + "\n")
	for i, name := range sim.Names {
		port := sim.Ports[i]
		fmt.Fprintf(&inv, "\n[boards.%s]\nhost = \"127.0.0.1\"\nport = %d\ntags = [\"sim\", \"c%d\"]\n", name, port, i/n+1)
		line := fmt.Sprintf("[127.0.0.1]:%d %s\n", port, sim.HostKey)
		kh.WriteString(line)
		if s.knownHostsPerBoard {
			own := filepath.Join(work, "known_hosts."+name)
			if err := os.WriteFile(own, []byte(line), 0o644); err != nil {
				fatalf("%v", err)
			}
			fmt.Fprintf(&inv, "known_hosts = %s\n", strconv.Quote(own))
		}
	}
	path := filepath.Join(work, "boards.toml")
	if err := os.WriteFile(path, []byte(inv.String()), 0o644); err != nil {
		fatalf("%v", err)
	}
	if err := os.WriteFile(knownHosts, []byte(kh.String()), 0o644); err != nil {
		fatalf("%v", err)
	}
	return path
}

// runFleets runs one `fleet run --tag cC` per database of dbs at once, each over its n boards, and waits for
// all of them.
func runFleets(s *setup, work, kind, inv string, dbs []string, n int) []sample {
	type started struct {
		cmd   *exec.Cmd
		start time.Time
		log   string
		rss   string
	}
	runs := make([]started, len(dbs))
	for c, db := range dbs {
		name := fmt.Sprintf("%s-c%d", kind, c+1)
		if !strings.Contains(db, "://") {
			db = strings.TrimSuffix(db, ".db") + "-" + kind + ".db"
		}
		r := started{log: filepath.Join(work, name+".log"), rss: filepath.Join(work, name+".rss")}
		logf, err := os.Create(r.log)
		if err != nil {
			fatalf("%v", err)
		}
		// Peak RSS comes from GNU time, which forks the controller from its own small process: Go starts
		// children with CLONE_VM, and Linux keeps the parent's high-water RSS across exec in the child's
		// ru_maxrss, so ProcessState.SysUsage here would report this process's RSS as the controller's.
		r.cmd = pinned(s.ctlCPUs, []string{"/usr/bin/time", "-f", "%M %U %S", "-o", r.rss, s.fleetBin, "--inventory", inv,
			"--db", db, "run", "--tag", fmt.Sprintf("c%d", c+1), "--concurrency", strconv.Itoa(n), "--agent", s.agentBin})
		r.cmd.Dir = work
		r.cmd.Stdout, r.cmd.Stderr = logf, logf
		r.cmd.Env = controllerEnv(filepath.Join(work, "home"), s.env)
		r.start = time.Now()
		if err := r.cmd.Start(); err != nil {
			fatalf("start fleet: %v", err)
		}
		logf.Close()
		runs[c] = r
	}
	out := make([]sample, len(runs))
	for c, r := range runs {
		err := r.cmd.Wait()
		smp := sample{controller: c + 1, wall: time.Since(r.start)}
		if err != nil {
			smp.err = fmt.Errorf("%v; see %s", err, r.log)
		}
		if err := readTime(r.rss, &smp); err != nil && smp.err == nil {
			smp.err = err
		}
		if b, err := os.ReadFile(r.log); err == nil {
			smp.leaseWaits = strings.Count(string(b), "waiting for run")
			smp.lost = len(failedRow.FindAllIndex(b, -1))
		}
		out[c] = smp
	}
	return out
}

// failedRow is a board's row in the summary table of `fleet run` when the board failed.
var failedRow = regexp.MustCompile(`(?m)^ +sim[0-9]+ +failed `)

// controllerEnv is this process's environment for a controller, with a private HOME (no ~/.ssh/config or
// ssh-agent of the user's takes part) and extra added.
func controllerEnv(home string, extra []string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "SSH_AUTH_SOCK=") {
			env = append(env, e)
		}
	}
	return append(append(env, "HOME="+home), extra...)
}

// readTime reads GNU time's "%M %U %S" into smp.
func readTime(path string, smp *sample) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	// After a failed command GNU time writes "Command exited with non-zero status N" first.
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var kib, user, sys float64
	if _, err := fmt.Sscan(lines[len(lines)-1], &kib, &user, &sys); err != nil {
		return fmt.Errorf("%s: %q: %v", path, b, err)
	}
	smp.rssMiB, smp.cpu = kib/1024, user+sys
	return nil
}
