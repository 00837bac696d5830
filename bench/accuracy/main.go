// Command accuracy measures how faithful `fleet run` is to `openssl speed` run by hand (bench/README.md §a): for
// every point (algorithm, block size) it alternates, round after round, one `fleet run` of that point alone and
// the same `openssl speed -elapsed -seconds S -bytes N -evp ALG` typed by hand on the same board (locally for the
// local board, through the system ssh client for a board of the inventory), and prints fleet ÷ hand per pair,
// the median per point, and the median and spread over the points.
//
// On a machine shared with other work, wall-clock throughput follows the load from one second to the next, for
// both sides alike. For the local board it also prints the ratio of bytes per CPU-second of the openssl process
// (fleet: the point's user+sys; by hand: the child's rusage), which the load does not move.
//
//	go run ./bench/accuracy -board local -seconds 2 -rounds 3
//	go run ./bench/accuracy -inventory lab/run/boards.toml -board qemu-arm64
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/bench/internal/machine"
	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/inventory"
)

type point struct {
	alg  string
	size int
}

func main() {
	board := flag.String("board", "local", "board to measure")
	invPath := flag.String("inventory", "", "boards.toml holding the board (not needed for local)")
	algs := flag.String("algorithms", "aes-128-cbc,sha256", "algorithms, comma-separated")
	sizes := flag.String("sizes", "16,1024,16384", "block sizes, comma-separated")
	mode := flag.String("mode", "cpu", "fleet mode; cpu is openssl's default path, what the hand command measures")
	seconds := flag.Int("seconds", 2, "openssl -seconds")
	rounds := flag.Int("rounds", 3, "fleet/hand pairs per point")
	fleetBin := flag.String("fleet", "", "fleet binary (default: built from ./cmd/fleet)")
	flag.Parse()
	if *seconds < 1 {
		usagef("-seconds: %d, want at least 1", *seconds)
	}
	if *rounds < 1 {
		usagef("-rounds: %d, want at least 1", *rounds)
	}
	var points []point
	for _, a := range strings.Split(*algs, ",") {
		if a = strings.TrimSpace(a); a == "" {
			usagef("-algorithms: %q has an empty name", *algs)
		}
		for _, s := range strings.Split(*sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				usagef("-sizes: %q is not a block size in bytes", s)
			}
			points = append(points, point{a, n})
		}
	}

	dir, err := os.MkdirTemp("", "fleet-bench-accuracy-")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(dir)
	if *fleetBin == "" {
		*fleetBin = filepath.Join(dir, "fleet")
		if err := buildtest.Build(dir, nil, buildtest.Module+"/cmd/fleet"); err != nil {
			fatalf("%v", err)
		}
	}
	hand := handRunner(*board, *invPath)
	fmt.Println(machine.Describe())
	fmt.Printf("board %s, mode %s, -seconds %d, %d rounds per point, order fleet, hand, fleet, hand ...\n\n", *board, *mode, *seconds, *rounds)
	fmt.Printf("%-12s %6s %5s %14s %14s %8s %10s\n", "algorithm", "size", "round", "fleet_B/s", "hand_B/s", "ratio", "cpu_ratio")
	db := filepath.Join(dir, "fleet.db")
	var wall, cpu stats
	for _, p := range points {
		var ratios, cpuRatios []float64
		for r := 1; r <= *rounds; r++ {
			f, fcpu := fleetPoint(*fleetBin, *invPath, db, *board, *mode, p, *seconds)
			h, hcpu := hand(p, *seconds)
			ratios = append(ratios, f/h)
			cr := "-"
			if fcpu > 0 && hcpu > 0 {
				// bytes per CPU-second: throughput × seconds ÷ (user + sys)
				c := (f / fcpu) / (h / hcpu)
				cpuRatios = append(cpuRatios, c)
				cr = fmt.Sprintf("%.4f", c)
			}
			fmt.Printf("%-12s %6d %5d %14.0f %14.0f %8.4f %10s\n", p.alg, p.size, r, f, h, f/h, cr)
		}
		wall.add(ratios)
		cpu.add(cpuRatios)
		fmt.Printf("%-12s %6d %5s %14s %14s %8.4f %10s  (wall min %.4f, max %.4f)\n", p.alg, p.size, "med", "", "", median(ratios),
			cpu.last(), slices.Min(ratios), slices.Max(ratios))
	}
	fmt.Println()
	wall.print("fleet/hand, wall-clock throughput")
	cpu.print("fleet/hand, bytes per CPU-second")
}

// stats collects the per-point medians of ratios and every pair.
type stats struct{ medians, all []float64 }

func (s *stats) add(ratios []float64) {
	if len(ratios) > 0 {
		s.medians = append(s.medians, median(ratios))
		s.all = append(s.all, ratios...)
	}
}

func (s *stats) last() string {
	if len(s.medians) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f", s.medians[len(s.medians)-1])
}

func (s *stats) print(what string) {
	if len(s.medians) == 0 {
		return
	}
	m := slices.Sorted(slices.Values(s.medians))
	fmt.Printf("%s over %d points: median %.4f, per-point medians from %.4f to %.4f (IQR %.4f-%.4f); all %d pairs from %.4f to %.4f\n",
		what, len(m), median(m), m[0], m[len(m)-1], quantile(m, 0.25), quantile(m, 0.75), len(s.all), slices.Min(s.all), slices.Max(s.all))
}

// fleetPoint runs `fleet run` for one point and returns its bytes per second and the CPU seconds per measured
// second of the openssl process (user+sys ÷ -seconds).
func fleetPoint(fleetBin, inv, db, board, mode string, p point, seconds int) (float64, float64) {
	args := []string{"--db", db}
	if inv != "" {
		args = append(args, "--inventory", inv)
	}
	args = append(args, "run", "--boards", board, "--seconds", strconv.Itoa(seconds), "--algorithms", p.alg,
		"--modes", mode, "--sizes", strconv.Itoa(p.size), "--format", "json")
	cmd := exec.Command(fleetBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		fatalf("fleet %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var ms []struct {
		Algorithm   string  `json:"algorithm"`
		BlockSize   int     `json:"block_size"`
		BytesPerSec float64 `json:"bytes_per_sec"`
		UserS       float64 `json:"user_s"`
		SysS        float64 `json:"sys_s"`
		Failed      bool    `json:"failed"`
	}
	if err := json.Unmarshal(out, &ms); err != nil {
		fatalf("fleet json: %v\n%s", err, out)
	}
	for _, m := range ms {
		if m.BlockSize == p.size && !m.Failed {
			return m.BytesPerSec, (m.UserS + m.SysS) / float64(seconds)
		}
	}
	fatalf("fleet stored no point for %s %d: %s\n%s", p.alg, p.size, out, stderr.String())
	return 0, 0
}

// handRunner returns what a person would type: openssl on this machine for local, through ssh otherwise.
// The second result is the openssl process's CPU seconds per measured second, or 0 through ssh.
func handRunner(board, invPath string) func(point, int) (float64, float64) {
	var prefix []string
	if board != inventory.LocalBoard {
		inv, err := inventory.LoadOrDefault(invPath, invPath != "")
		if err != nil {
			fatalf("%v", err)
		}
		bs, err := inv.Select([]string{board}, nil, false)
		if err != nil {
			fatalf("%v", err)
		}
		b := bs[0]
		prefix = []string{"ssh", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + b.KnownHosts,
			"-o", "IdentitiesOnly=yes", "-i", b.IdentityFile, "-p", strconv.Itoa(b.Port), b.User + "@" + b.Host}
	}
	return func(p point, seconds int) (float64, float64) {
		argv := append(append([]string{}, prefix...), "openssl", "speed", "-elapsed", "-seconds", strconv.Itoa(seconds),
			"-bytes", strconv.Itoa(p.size), "-evp", p.alg)
		cmd := exec.Command(argv[0], argv[1:]...)
		out, err := cmd.Output()
		if err != nil {
			fatalf("%s: %v", strings.Join(argv, " "), err)
		}
		v, err := parseHuman(string(out))
		if err != nil {
			fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
		if prefix != nil {
			return v, 0
		}
		return v, (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds() / float64(seconds)
	}
}

// parseHuman reads the one-column table of `openssl speed -bytes N`: the row after "type", "1234.56k" in 1000s
// of bytes per second.
func parseHuman(out string) (float64, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	afterType := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if f[0] == "type" {
			afterType = true
			continue
		}
		if afterType && len(f) >= 2 {
			v, err := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-1], "k"), 64)
			if err != nil {
				return 0, err
			}
			return v * 1000, nil
		}
	}
	return 0, fmt.Errorf("no table in the output")
}

func median(v []float64) float64 { return quantile(v, 0.5) }

// quantile interpolates linearly between the order statistics.
func quantile(v []float64, q float64) float64 {
	s := slices.Sorted(slices.Values(v))
	x := q * float64(len(s)-1)
	i := int(x)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (x-float64(i))*(s[i+1]-s[i])
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench accuracy: "+format+"\n", args...)
	os.Exit(1)
}

// usagef refuses a flag's value: exit 2, as for a flag the flag package does not know.
func usagef(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench accuracy: "+format+"\n", args...)
	os.Exit(2)
}
