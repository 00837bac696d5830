// Command precision measures what adaptive repeats cost against fixed ones (bench/README.md §m): on one board it
// runs the quick profile side by side, round after round, with `--precision T` for each target T and with
// `--repeat 10`, and replays Phoronix Test Suite's rule (3 runs, one more while the relative standard deviation
// is above 3.5 %, up to the repeats recorded) on the --repeat 10 run's repeats, in the order they were measured.
// For each scheme it prints the board-seconds (the wall seconds of every openssl run the board did, and the whole
// fleet run's elapsed time) and, per target, how many points missed it: whose 95 % confidence interval of the
// median (distribution-free, package precision) is wider than ±T % of the median — a point with fewer than six
// repeats has no such interval and misses every target.
//
// Validity limits are lifted (100 %) for the benchmark: on a shared machine most repeats would otherwise be
// invalid and none would count, and the benchmark is about the stopping rule.
//
//	go run ./bench/precision -board local
//	go run ./bench/precision -inventory lab/run/boards.toml -board qemu-arm64
//	go run ./bench/precision -from /tmp/fleet-bench-precision-…/fleet.db   # the runs an interrupted one stored
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/bench/internal/machine"
	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/precision"
)

// row is one point of `fleet run --format json`.
type row struct {
	Board       string  `json:"board"`
	Mode        string  `json:"mode"`
	Algorithm   string  `json:"algorithm"`
	Op          string  `json:"op"`
	BlockSize   int     `json:"block_size"`
	KeyBits     int     `json:"key_bits"`
	Repeat      int     `json:"repeat"`
	BytesPerSec float64 `json:"bytes_per_sec"`
	OpsPerSec   float64 `json:"ops_per_sec"`
	WallS       float64 `json:"wall_s"`
	Failed      bool    `json:"failed"`
	Validity    string  `json:"validity"`
}

func (r row) key() string {
	return fmt.Sprintf("%s %s %s %d %d", r.Mode, r.Algorithm, r.Op, r.BlockSize, r.KeyBits)
}

func (r row) value() float64 {
	if r.BlockSize == 0 {
		return r.OpsPerSec
	}
	return r.BytesPerSec
}

// outcome is one scheme's result in one round: per point the repeats it used, in order.
type outcome struct {
	name    string
	elapsed time.Duration
	points  map[string][]row
}

func main() {
	board := flag.String("board", "local", "board to measure")
	invPath := flag.String("inventory", "", "boards.toml holding the board (not needed for local)")
	profile := flag.String("profile", "quick", "sweep profile")
	seconds := flag.Float64("seconds", 0, "seconds per point (0: the profile's)")
	targets := flag.String("targets", "2,1", "precision targets in percent, comma-separated")
	repeat := flag.Int("repeat", 10, "the fixed scheme's repeats")
	maxRepeat := flag.Int("max-repeat", 20, "--max-repeat of the adaptive runs")
	rounds := flag.Int("rounds", 1, "rounds; each runs every scheme once, in turn")
	ptsRSD := flag.Float64("pts-rsd", 3.5, "PTS rule: add runs while the relative standard deviation is above this, in percent")
	fleetBin := flag.String("fleet", "", "fleet binary (default: built from ./cmd/fleet)")
	extra := flag.String("args", "", "more arguments for every fleet run, space-separated (e.g. \"--modes cpu,soft\")")
	from := flag.String("from", "", "measure nothing: report on the runs stored in this fleet.db by an earlier, interrupted benchmark")
	flag.Parse()

	dir, err := os.MkdirTemp("", "fleet-bench-precision-")
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
	var ts []float64
	for _, s := range strings.Split(*targets, ",") {
		v, err := precision.Parse(s)
		if err != nil {
			fatalf("-targets: %v", err)
		}
		ts = append(ts, v)
	}
	schemes := [][]string{}
	names := []string{}
	for i, t := range ts {
		if i == len(ts)/2 {
			schemes, names = append(schemes, []string{"--repeat", strconv.Itoa(*repeat)}), append(names, fmt.Sprintf("--repeat %d", *repeat))
		}
		p := strconv.FormatFloat(t, 'f', -1, 64)
		schemes = append(schemes, []string{"--precision", p, "--max-repeat", strconv.Itoa(*maxRepeat)})
		names = append(names, "--precision "+p)
	}
	if *from != "" {
		all := stored(*fleetBin, *from, *ptsRSD)
		fmt.Println(machine.Describe())
		fmt.Printf("runs stored in %s: %d scheme run(s); PTS replayed on --repeat %d\n\n", *from, len(all), *repeat)
		report(all, ts, names, *repeat)
		return
	}
	inv := liftValidity(dir, *invPath, *board)

	fmt.Println(machine.Describe())
	fmt.Printf("board %s, profile %s, seconds %v, %d round(s), schemes in turn: %s; PTS replayed on --repeat %d\n\n",
		*board, *profile, *seconds, *rounds, strings.Join(names, ", "), *repeat)
	var all []outcome
	for r := 1; r <= *rounds; r++ {
		for i, s := range schemes {
			args := []string{"--inventory", inv, "--db", filepath.Join(dir, "fleet.db"), "run", "--boards", *board,
				"--profile", *profile, "--format", "json"}
			if *seconds > 0 {
				args = append(args, "--seconds", strconv.FormatFloat(*seconds, 'f', -1, 64))
			}
			args = append(args, strings.Fields(*extra)...)
			args = append(args, s...)
			o := runFleet(*fleetBin, args)
			o.name = names[i]
			fmt.Fprintf(os.Stderr, "round %d %s: %d points in %.1f s (%s)\n", r, o.name, len(o.points), o.elapsed.Seconds(), machine.Describe())
			all = append(all, o)
			if s[0] == "--repeat" {
				all = append(all, pts(o, *ptsRSD))
			}
		}
	}
	report(all, ts, names, *repeat)
	fmt.Println()
	fmt.Println(machine.Describe())
}

// stored reads back the runs of an earlier benchmark from its database: the scheme of each from its command
// line, the elapsed time from its start and end (runs that did not finish are left out).
func stored(bin, db string, rsd float64) []outcome {
	var runs []struct {
		ID          int64     `json:"id"`
		Started     time.Time `json:"started"`
		Finished    time.Time `json:"finished"`
		CommandLine string    `json:"command_line"`
	}
	out, err := exec.Command(bin, "--db", db, "runs", "--format", "json").Output()
	if err == nil {
		err = json.Unmarshal(out, &runs)
	}
	if err != nil {
		fatalf("runs of %s: %v", db, err)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].ID < runs[j].ID })
	var all []outcome
	for _, r := range runs {
		if r.Finished.Before(r.Started) {
			continue
		}
		f := strings.Fields(r.CommandLine)
		name := ""
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "--precision" || f[i] == "--repeat" {
				name = f[i] + " " + f[i+1]
			}
		}
		o := readRun(bin, []string{"--db", db, "results", "--run", strconv.FormatInt(r.ID, 10), "--format", "json"})
		o.name, o.elapsed = name, r.Finished.Sub(r.Started)
		all = append(all, o)
		if strings.HasPrefix(name, "--repeat") {
			all = append(all, pts(o, rsd))
		}
	}
	return all
}

// liftValidity writes a boards.toml with the board's validity limits at 100 %: the given inventory with a
// validity table added, or one for the local board.
func liftValidity(dir, invPath, board string) string {
	var doc []byte
	if invPath != "" {
		b, err := os.ReadFile(invPath)
		if err != nil {
			fatalf("%v", err)
		}
		doc = append(b, '\n')
	}
	doc = append(doc, fmt.Sprintf("[boards.%s.validity]\nbackground_peak_pct = 100\nbackground_avg_pct = 100\nthrottle_pct = 100\n", board)...)
	p := filepath.Join(dir, "boards.toml")
	if err := os.WriteFile(p, doc, 0o644); err != nil {
		fatalf("%v", err)
	}
	return p
}

func runFleet(bin string, args []string) outcome {
	start := time.Now()
	o := readRun(bin, args)
	o.elapsed = time.Since(start)
	return o
}

// readRun runs fleet with args and reads the points it prints as JSON.
func readRun(bin string, args []string) outcome {
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout = &out
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		fatalf("fleet %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var rows []row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		fatalf("fleet output: %v", err)
	}
	o := outcome{points: map[string][]row{}}
	for _, r := range rows {
		o.points[r.key()] = append(o.points[r.key()], r)
	}
	for k := range o.points {
		sort.Slice(o.points[k], func(i, j int) bool { return o.points[k][i].Repeat < o.points[k][j].Repeat })
	}
	return o
}

// pts replays PTS's rule on a fixed run: per point the first m repeats, m the smallest n ≥ 3 whose relative
// standard deviation is at most rsd %, else all of them. Its elapsed time is the fixed run's, scaled by the
// share of board-seconds it kept.
func pts(fixed outcome, rsd float64) outcome {
	o := outcome{name: "PTS rule (replayed)", points: map[string][]row{}}
	var kept, all float64
	for k, rs := range fixed.points {
		m := len(rs)
		for n := 3; n <= len(rs); n++ {
			if relSD(rs[:n]) <= rsd {
				m = n
				break
			}
		}
		o.points[k] = rs[:m]
		kept += wall(rs[:m])
		all += wall(rs)
	}
	if all > 0 {
		o.elapsed = time.Duration(float64(fixed.elapsed) * kept / all)
	}
	return o
}

func relSD(rs []row) float64 {
	var sum, sq float64
	for _, r := range rs {
		sum += r.value()
	}
	mean := sum / float64(len(rs))
	for _, r := range rs {
		sq += (r.value() - mean) * (r.value() - mean)
	}
	return 100 * math.Sqrt(sq/float64(len(rs)-1)) / mean
}

func wall(rs []row) float64 {
	var s float64
	for _, r := range rs {
		s += r.WallS
	}
	return s
}

// half is the achieved precision of a point: the 95 % interval's half width in percent of the median of the
// repeats that count (+Inf below six).
func half(rs []row) float64 {
	var vs []float64
	for _, r := range rs {
		if !r.Failed && r.Validity != "invalid" {
			vs = append(vs, r.value())
		}
	}
	sort.Float64s(vs)
	return precision.MedianCI(vs).HalfPct()
}

func report(all []outcome, ts []float64, names []string, repeat int) {
	type sum struct {
		boardS, runS float64
		points       int
		missed       []int
		ns           []int
		halves       []float64
		rounds       int
	}
	order := append(append([]string{}, names...), "PTS rule (replayed)")
	sums := map[string]*sum{}
	for _, o := range all {
		s := sums[o.name]
		if s == nil {
			s = &sum{missed: make([]int, len(ts))}
			sums[o.name] = s
		}
		s.rounds++
		s.runS += o.elapsed.Seconds()
		for _, rs := range o.points {
			s.points++
			s.boardS += wall(rs)
			h := half(rs)
			s.halves = append(s.halves, h)
			s.ns = append(s.ns, len(rs))
			for i, t := range ts {
				if !(h <= t) {
					s.missed[i]++
				}
			}
		}
	}
	base := sums[fmt.Sprintf("--repeat %d", repeat)]
	if base == nil {
		fatalf("no --repeat %d run to compare with", repeat)
	}
	fmt.Printf("%-20s %7s %9s %9s %7s %9s", "scheme", "points", "board-s", "×fixed", "run-s", "n med/max")
	for _, t := range ts {
		fmt.Printf(" %12s", fmt.Sprintf("missed ±%g%%", t))
	}
	fmt.Printf(" %14s\n", "half med/max %")
	for _, name := range order {
		s := sums[name]
		if s == nil {
			continue
		}
		sort.Ints(s.ns)
		sort.Float64s(s.halves)
		ratio := s.boardS / base.boardS
		fmt.Printf("%-20s %7d %9.1f %8.2f× %7.1f %9s", name, s.points, s.boardS, ratio, s.runS,
			fmt.Sprintf("%d/%d", s.ns[len(s.ns)/2], s.ns[len(s.ns)-1]))
		for i := range ts {
			fmt.Printf(" %12s", fmt.Sprintf("%d (%.0f%%)", s.missed[i], 100*float64(s.missed[i])/float64(s.points)))
		}
		fmt.Printf(" %14s\n", fmt.Sprintf("%s/%s", fmtHalf(s.halves[len(s.halves)/2]), fmtHalf(s.halves[len(s.halves)-1])))
	}
}

func fmtHalf(h float64) string {
	if math.IsInf(h, 1) {
		return "none"
	}
	return fmt.Sprintf("%.2f", h)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "precision bench: "+format+"\n", args...)
	os.Exit(1)
}
