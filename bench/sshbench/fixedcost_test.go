package sshbench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fleetlab/fleet/bench/internal/machine"
	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/internal/sshlab"
)

// TestBenchFixedCost measures fleet's fixed cost per board (bench/README.md §l): one 1-s point on three real sshd
// boards in parallel, `fleet run` against plain parallel `ssh BOARD openssl speed …`, over a link without delay
// and over one with a round-trip time (sshlab's Options.Delay), rounds interleaved across links and tools (the
// order rotates each round). Overhead = wall − 1 s. Each fleet is a built CLI with its own agent, so that two
// versions (main's and a branch's) run side by side in one run:
//
//	FLEET_BENCH_FLEETS=before=/tmp/main/fleet:/tmp/main/fleet-agent,after=/tmp/new/fleet:/tmp/new/fleet-agent
//
// (default: fleet and its agent built from this tree, named "fleet"). FLEET_BENCH_RTTS lists the round-trip
// times (default 0,50ms), FLEET_BENCH_ROUNDS the rounds (default 5).
func TestBenchFixedCost(t *testing.T) {
	smokeRun := needBench(t)
	rounds := benchRounds(t, 5, smokeRun)
	rtts := []time.Duration{0, 50 * time.Millisecond}
	if v := os.Getenv("FLEET_BENCH_RTTS"); v != "" {
		rtts = nil
		for _, s := range strings.Split(v, ",") {
			if s == "0" {
				s = "0s"
			}
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				t.Fatalf("FLEET_BENCH_RTTS: %q is not a duration such as 50ms", s)
			}
			rtts = append(rtts, d)
		}
	}
	dir := t.TempDir()
	type fleetBuild struct{ name, bin, agent string }
	var fleets []fleetBuild
	if v := os.Getenv("FLEET_BENCH_FLEETS"); v != "" {
		for _, spec := range strings.Split(v, ",") {
			name, paths, ok1 := strings.Cut(spec, "=")
			bin, agent, ok2 := strings.Cut(paths, ":")
			if !ok1 || !ok2 {
				t.Fatalf("FLEET_BENCH_FLEETS: %q: want NAME=FLEET:AGENT", spec)
			}
			fleets = append(fleets, fleetBuild{name, bin, agent})
		}
	} else {
		fleets = []fleetBuild{{"fleet", buildtest.BinaryIn(t, dir, buildtest.Module+"/cmd/fleet"), buildAgent(t, dir)}}
	}

	type link struct {
		rtt time.Duration
		lab *sshlab.Lab
		inv string
	}
	var links []link
	for _, rtt := range rtts {
		l := sshlab.Start(t, sshlab.Options{Delay: rtt})
		inv := filepath.Join(dir, fmt.Sprintf("boards-%v.toml", rtt))
		if err := os.WriteFile(inv, []byte(l.BoardsTOML()), 0o644); err != nil {
			t.Fatal(err)
		}
		links = append(links, link{rtt, l, inv})
	}
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	env := []string{"HOME=" + home}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "SSH_AUTH_SOCK=") && !strings.HasPrefix(e, "FLEET_") {
			env = append(env, e)
		}
	}
	boards := []string{"board1", "board2", "board3"}

	type tool struct {
		name string
		run  func(l link) (time.Duration, float64, error) // wall, and fleet's slowest board's verification (s)
	}
	var tools []tool
	// runFleet runs one fleet over link l, traced (FLEET_TRACE=1: a line on stderr per phase, session, path
	// verified and point), and returns its wall time and the longest of the boards' verification times (the
	// time the boards, in parallel, spent verifying the path before measuring it); with trace, the trace lines
	// go there too.
	runFleet := func(f fleetBuild, l link, trace *bytes.Buffer) (time.Duration, float64, error) {
		db := filepath.Join(dir, fmt.Sprintf("%s-%v.db", f.name, l.rtt))
		cmd := exec.Command(f.bin, "--inventory", l.inv, "--db", db, "run", "--boards", strings.Join(boards, ","),
			"--seconds", "1", "--sizes", "1024", "--algorithms", "aes-128-cbc", "--modes", "cpu", "--agent", f.agent)
		cmd.Env = append(slices.Clip(env), "FLEET_TRACE=1")
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		for _, b := range boards {
			// measured: its table, whether ok or suspect or invalid for the other boards' CPU on the same cores
			if err == nil && !strings.Contains(out.String(), b+" aes-128-cbc (MB/s") {
				err = fmt.Errorf("%s not measured", b)
			}
		}
		if trace != nil {
			trace.Write(stderr.Bytes())
		}
		if err != nil {
			return d, 0, fmt.Errorf("%w\n%s%s", err, out.String(), stderr.String())
		}
		return d, slowestVerification(stderr.String()), nil
	}
	for _, f := range fleets {
		tools = append(tools, tool{f.name, func(l link) (time.Duration, float64, error) { return runFleet(f, l, nil) }})
	}
	tools = append(tools, tool{"ssh", func(l link) (time.Duration, float64, error) {
		var wg sync.WaitGroup
		errs := make([]error, len(boards))
		start := time.Now()
		for i, b := range boards {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := l.lab.SSH(b, speedCmd)
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("ssh %s: %w: %s", b, err, out)
				} else if !strings.Contains(strings.ToLower(string(out)), "aes-128-cbc ") {
					errs[i] = fmt.Errorf("ssh %s: no result: %s", b, out)
				}
			}()
		}
		wg.Wait()
		d := time.Since(start)
		for _, err := range errs {
			if err != nil {
				return d, 0, err
			}
		}
		return d, 0, nil
	}})

	fmt.Println(machine.Describe())
	fmt.Printf("boards board1..3 (OpenSSH sshd, network namespaces %v), delay by %q; measured: %s\n",
		links[0].lab.Namespaced, links[len(links)-1].lab.DelayBy, speedCmd)
	for _, f := range fleets {
		fmt.Printf("%s: %s --inventory INV --db DB run --boards %s --seconds 1 --sizes 1024 --algorithms aes-128-cbc --modes cpu --agent %s\n",
			f.name, f.bin, strings.Join(boards, ","), f.agent)
	}
	fmt.Printf("ssh: in parallel, ssh -F <lab ssh_config> BOARD %s\n\n", speedCmd)
	for _, l := range links {
		for _, tl := range tools {
			d, _, err := tl.run(l)
			if err != nil {
				t.Fatalf("warm-up %s rtt %v: %v", tl.name, l.rtt, err)
			}
			fmt.Printf("warm-up rtt %-6v %-8s %7.3f s (not counted)\n", l.rtt, tl.name, secs(d))
		}
		for _, f := range fleets {
			var trace bytes.Buffer
			if _, _, err := runFleet(f, l, &trace); err != nil {
				t.Fatalf("traced run of %s rtt %v: %v", f.name, l.rtt, err)
			}
			var lines []string
			for _, line := range strings.Split(trace.String(), "\n") {
				if strings.HasPrefix(line, "trace ") {
					lines = append(lines, "  "+line)
				}
			}
			fmt.Printf("trace of %s, rtt %v (FLEET_TRACE=1, not counted):\n%s\n", f.name, l.rtt, strings.Join(lines, "\n"))
		}
	}
	fmt.Printf("\n%-5s %-6s %-8s %8s %10s %8s %10s  %s\n", "round", "rtt", "tool", "wall_s", "overhead_s", "verify_s",
		"less_ver_s", "load")
	over, lessVer := map[string][]float64{}, map[string][]float64{}
	key := func(rtt time.Duration, tool string) string { return fmt.Sprintf("%v %s", rtt, tool) }
	for r := 0; r < rounds; r++ {
		for li := range links {
			l := links[(li+r)%len(links)]
			for i := range tools {
				tl := tools[(i+r)%len(tools)]
				d, ver, err := tl.run(l)
				if err != nil {
					t.Fatalf("round %d %s rtt %v: %v", r+1, tl.name, l.rtt, err)
				}
				k := key(l.rtt, tl.name)
				over[k] = append(over[k], secs(d)-1)
				lessVer[k] = append(lessVer[k], secs(d)-1-ver)
				fmt.Printf("%-5d %-6v %-8s %8.3f %10.3f %8.3f %10.3f  %s\n", r+1, l.rtt, tl.name, secs(d), secs(d)-1, ver,
					secs(d)-1-ver, loadavg())
			}
		}
	}
	fmt.Printf("\nmedian overhead beyond the 1 s measurement over %d rounds (%s):\n", rounds, machine.Describe())
	for _, l := range links {
		s := median(over[key(l.rtt, "ssh")])
		line := fmt.Sprintf("  rtt %-6v ssh %.3f s", l.rtt, s)
		for _, f := range fleets {
			m := median(over[key(l.rtt, f.name)])
			v := median(lessVer[key(l.rtt, f.name)])
			line += fmt.Sprintf(", %s %.3f s (%.2f× ssh; less its slowest board's verification %.3f s, %.2f× ssh)", f.name, m, m/s, v, v/s)
		}
		fmt.Println(line)
	}
}

// slowestVerification is the longest of the boards' summed `verify …` phases in a fleet trace, in seconds.
func slowestVerification(trace string) float64 {
	per := map[string]float64{}
	for _, line := range strings.Split(trace, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != "trace" || f[4] != "verify" || !strings.HasSuffix(f[3], "ms") {
			continue
		}
		if ms, err := strconv.ParseFloat(strings.TrimSuffix(f[3], "ms"), 64); err == nil {
			per[f[1]] += ms / 1000
		}
	}
	var most float64
	for _, v := range per {
		most = max(most, v)
	}
	return most
}

// loadavg is /proc/loadavg's three averages, "?" where it cannot be read.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
