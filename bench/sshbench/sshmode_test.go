package sshbench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/internal/sshlab"
)

// sshCiphers are mode ssh's default ciphers.
var sshCiphers = []string{"aes128-ctr", "aes256-ctr", "aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
	"chacha20-poly1305@openssh.com"}

// rawCiphers are the openssl algorithms the SSH table compares them with.
const rawCiphers = "aes-128-ctr,aes-256-ctr,aes-128-gcm,aes-256-gcm,chacha20-poly1305"

// TestBenchSSHMode prints mode ssh's table (bench/README.md §k) twice:
//   - the sshd boards of the test lab (network namespaces as root: each board behind a veth, board4 through
//     board1 as ProxyJump), 64 MiB each way, once;
//   - the controller's own ceiling: board3 on a 127.0.0.1 port (Options.Loopback), 64 MiB each way, three
//     repeats, next to OpenSSH's own client (ssh -c CIPHER) moving the same 64 MiB through the same server, so
//     that what x/crypto/ssh costs the controller can be told from what the machine allows.
//
// Each lab board is this machine: its CPU % is the whole machine's, the controller's included. Before the ssh
// runs, a cpu run of the matching openssl algorithms gives the SSH/raw column.
func TestBenchSSHMode(t *testing.T) {
	smokeRun := needBench(t)
	// The smoke run moves 1 MiB each way, once, and gives the cpu points 1 s: the whole path, small.
	size, cpuSeconds, clientRepeats := 64<<20, "2", 3
	if smokeRun {
		size, cpuSeconds, clientRepeats = 1<<20, "1", 1
	}
	dir := t.TempDir()
	fleetBin := buildtest.BinaryIn(t, dir, buildtest.Module+"/cmd/fleet")
	agentPath := buildAgent(t, dir)
	for _, loopback := range []bool{false, true} {
		lab := sshlab.Start(t, sshlab.Options{Loopback: loopback})
		inv := filepath.Join(t.TempDir(), "boards.toml")
		db := filepath.Join(t.TempDir(), "fleet.db")
		if err := os.WriteFile(inv, []byte(lab.BoardsTOML()), 0o644); err != nil {
			t.Fatal(err)
		}
		fleet := func(args ...string) string {
			t.Helper()
			cmd := exec.Command(fleetBin, append(args[:1:1], append([]string{"--inventory", inv, "--db", db}, args[1:]...)...)...)
			cmd.Env = append(os.Environ(), "HOME="+dir, "SSH_AUTH_SOCK=")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("fleet %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		boards, repeat := "board1,board3,board4", "1"
		if loopback && !smokeRun {
			boards, repeat = "board3", "3"
		} else if loopback {
			boards = "board3"
		}
		fleet("run", "--boards", boards, "--agent", agentPath, "--modes", "cpu", "--algorithms", rawCiphers,
			"--sizes", "16384", "--seconds", cpuSeconds)
		start := time.Now()
		fleet("run", "--boards", boards, "--agent", agentPath, "--modes", "ssh", "--repeat", repeat, "--sizes", strconv.Itoa(size))
		fmt.Printf("== %s: fleet run --boards %s --modes ssh --repeat %s (%.0f s)\n", map[bool]string{false: "sshd boards (network namespaces)", true: "loopback ceiling"}[loopback],
			boards, repeat, time.Since(start).Seconds())
		fmt.Print(fleet("compare", "--modes", "ssh"))
		if loopback {
			openSSHClient(t, lab, size, clientRepeats)
		}
	}
}

// openSSHClient times OpenSSH's own client moving n bytes (64 MiB in the benchmark) each way per cipher through
// board3's server, repeats times, and prints the medians: connect and handshake included (about 0.1 s of the
// figure here).
func openSSHClient(t *testing.T, lab *sshlab.Lab, n, repeats int) {
	t.Helper()
	fmt.Printf("\n== OpenSSH client (ssh -c CIPHER), %d MiB each way, median of %d, connection set-up included\n", n>>20, repeats)
	fmt.Printf("%-30s %12s %12s\n", "cipher", "upload MB/s", "download MB/s")
	for _, c := range sshCiphers {
		var up, down []float64
		for range repeats {
			cmd := lab.SSH("board3", "-c", c, "cat > /dev/null")
			cmd.Stdin = io.LimitReader(zeros{}, int64(n))
			t0 := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("ssh -c %s upload: %v\n%s", c, err, out)
			}
			up = append(up, float64(n)/time.Since(t0).Seconds()/1e6)
			cmd = lab.SSH("board3", "-c", c, fmt.Sprintf("head -c %d /dev/zero", n))
			cmd.Stdout = io.Discard
			t0 = time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("ssh -c %s download: %v", c, err)
			}
			down = append(down, float64(n)/time.Since(t0).Seconds()/1e6)
		}
		fmt.Printf("%-30s %12.1f %12.1f\n", c, median(up), median(down))
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
