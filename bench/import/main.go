// Command import measures `fleet import` on a large capture (bench/README.md §g): it writes a capture of -size
// bytes by concatenating real captures from opensslspeed/testdata/captures (a log of many nightly runs pasted
// into one file), then runs the fleet binary under GNU time and reports its peak RSS (%M) and wall time for
// `import --dry-run --format json`, `import --dry-run` (table) and a real import into a new database.
//
//	go build -o /tmp/fleet ./cmd/fleet && go run ./bench/import -fleet /tmp/fleet -size 200MB
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/bench/internal/machine"
)

// captures are well-formed outputs of OpenSSL 1.0 to 3.0: human tables, -mr, -multi, asymmetric.
var captures = []string{
	"L01_local-3.0-evp-aes128cbc-elapsed.txt",
	"L02_local-3.0-evp-aes128cbc-mr.txt",
	"L03_local-3.0-evp-aes128cbc-multi2.txt",
	"L04_local-3.0-rsa2048.txt",
	"L05_local-3.0-ecdsap256.txt",
	"L06_local-3.0-sha256-cputime.txt",
	"L10_local-3.0-mr-rsa2048-ed25519-ecdhp256.txt",
	"Q03_qemu-arm64-smp2-3.0.20-mr-multi2-evp-aes128cbc.txt",
	"01_rpi1-armv6-raspbian-1.0.1e-full.txt",
	"03_intel-i5-4690k-ubuntu-1.0.1f-full.txt",
	"16_eaidk310-rk3328-debian12-3.0.11-elapsed-mixed-names.txt",
}

func main() {
	fleetBin := flag.String("fleet", "", "fleet binary to measure (required: build the tree or the version to compare)")
	size := flag.String("size", "200MB", "capture size (B, KB, MB, GB: powers of 1000)")
	dir := flag.String("dir", "", "work directory (default: a new temporary directory, removed at the end)")
	modes := flag.String("modes", "dry-json,dry-table,store", "what to run, comma-separated")
	flag.Parse()
	if err := run(*fleetBin, *size, *dir, strings.Split(*modes, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bench import:", err)
		os.Exit(1)
	}
}

func run(fleetBin, size, dir string, modes []string) error {
	if fleetBin == "" {
		return fmt.Errorf("-fleet: name the fleet binary to measure")
	}
	n, err := parseSize(size)
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "fleet-bench-import-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	capture := filepath.Join(dir, "capture.txt")
	written, runs, err := writeCapture(capture, n)
	if err != nil {
		return err
	}
	fmt.Println(machine.Describe())
	fmt.Printf("capture: %d bytes (%.1f MiB), %d copies of %d real captures, binary %s\n", written,
		float64(written)/(1<<20), runs, len(captures), fleetBin)
	for _, m := range modes {
		args := []string{"import", "--board", "big"}
		switch m {
		case "dry-json":
			args = append(args, "--dry-run", "--format", "json")
		case "dry-table":
			args = append(args, "--dry-run")
		case "store":
			db := filepath.Join(dir, "fleet.db")
			os.Remove(db)
			args = append([]string{"--db", db}, args...)
		default:
			return fmt.Errorf("-modes: unknown %q (dry-json, dry-table, store)", m)
		}
		args = append(args, capture)
		rss, wall, cpu, code, tail, err := timed(fleetBin, args)
		if err != nil {
			return err
		}
		fmt.Printf("%-9s  peak RSS %7.1f MiB  wall %6.1f s  cpu %6.1f s  exit %d  (fleet %s)\n", m, rss, wall, cpu,
			code, strings.Join(args, " "))
		if tail != "" {
			fmt.Printf("           stderr ends: %s\n", tail)
		}
	}
	return nil
}

// writeCapture writes at least n bytes of concatenated captures and returns the size and number of copies.
func writeCapture(path string, n int64) (int64, int, error) {
	root, err := moduleRoot()
	if err != nil {
		return 0, 0, err
	}
	var one bytes.Buffer
	for _, name := range captures {
		b, err := os.ReadFile(filepath.Join(root, "opensslspeed", "testdata", "captures", name))
		if err != nil {
			return 0, 0, fmt.Errorf("read capture: %w", err)
		}
		one.Write(b)
		one.WriteString("\n")
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, 0, err
	}
	var total int64
	copies := 0
	for total < n {
		w, err := f.Write(one.Bytes())
		if err != nil {
			f.Close()
			return 0, 0, err
		}
		total += int64(w)
		copies++
	}
	return total, copies, f.Close()
}

// timed runs fleet under GNU time: its peak RSS in MiB, wall and CPU seconds, exit code and last stderr line.
func timed(bin string, args []string) (rss, wall, cpu float64, code int, tail string, err error) {
	tf, err := os.CreateTemp("", "fleet-time-")
	if err != nil {
		return
	}
	tf.Close()
	defer os.Remove(tf.Name())
	cmd := exec.Command("/usr/bin/time", append([]string{"-o", tf.Name(), "-f", "%M %e %U %S", bin}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	if ee, ok := runErr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if runErr != nil {
		err = runErr
		return
	}
	out, err := os.ReadFile(tf.Name())
	if err != nil {
		return
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	f := strings.Fields(lines[len(lines)-1])
	if len(f) != 4 {
		err = fmt.Errorf("GNU time printed %q", out)
		return
	}
	kb, _ := strconv.ParseFloat(f[0], 64)
	wall, _ = strconv.ParseFloat(f[1], 64)
	u, _ := strconv.ParseFloat(f[2], 64)
	s, _ := strconv.ParseFloat(f[3], 64)
	se := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	return kb / 1024, wall, u + s, code, truncate(se[len(se)-1], 160), nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// moduleRoot is the nearest directory at or above the working directory that holds go.mod: the benchmark runs
// from any directory of the module (its smoke test runs in bench/import).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod at or above %s: run from the repository", dir)
		}
	}
}

func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(strings.ToUpper(s), u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil || v <= 0 || v > 1e12/float64(u.mult) {
				return 0, fmt.Errorf("-size %q: want a positive size up to 1000GB, e.g. 200MB", s)
			}
			return int64(v * float64(u.mult)), nil
		}
	}
	return 0, fmt.Errorf("-size %q: want a number and B, KB, MB or GB, e.g. 200MB", s)
}
