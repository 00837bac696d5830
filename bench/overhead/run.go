package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// keys are shared by every simulated board: one host key, one client key.
type keys struct {
	host     ssh.Signer
	identity string // the client's private key file
	client   ssh.PublicKey
}

func newKeys(dir string) (*keys, error) {
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	host, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		return nil, err
	}
	clientPub, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	if err != nil {
		return nil, err
	}
	k := &keys{host: host, identity: filepath.Join(dir, "id_ed25519")}
	if err := os.WriteFile(k.identity, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, err
	}
	if k.client, err = ssh.NewPublicKey(clientPub); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *keys) serverConfig() *ssh.ServerConfig {
	want := string(k.client.Marshal())
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
		if string(key.Marshal()) == want {
			return nil, nil
		}
		return nil, fmt.Errorf("unknown key")
	}}
	cfg.AddHostKey(k.host)
	return cfg
}

// sample is one `fleet run`.
type sample struct {
	kind   string // cold or warm
	wall   time.Duration
	rssMiB float64
	cpu    float64 // the controller's user+sys seconds: its cost whatever the load
	pushed int64   // bytes sent on the boards' session stdin: the agent pushed, and a few request and plan lines
}

// runN starts n boards, runs fleet over them twice (cold, then warm) and stops them.
func runN(dir string, k *keys, fleetBin, agentBin string, n int, sweep time.Duration, round int) []sample {
	work := filepath.Join(dir, fmt.Sprintf("r%d-n%d", round, n))
	if err := os.MkdirAll(filepath.Join(work, "home"), 0o755); err != nil {
		fatalf("%v", err)
	}
	cfg := k.serverConfig()
	boards := make([]*fakeBoard, n)
	for i := range boards {
		name := fmt.Sprintf("sim%03d", i+1)
		b, err := startBoard(name, filepath.Join(work, "boards", name), cfg, sweep)
		if err != nil {
			fatalf("start board %d: %v", i+1, err)
		}
		boards[i] = b
	}
	defer func() {
		for _, b := range boards {
			b.close()
		}
		// Each board's HOME holds a copy of the agent: 3.3 MiB × 500 boards × rounds would fill /tmp.
		os.RemoveAll(filepath.Join(work, "boards"))
	}()
	knownHosts := filepath.Join(work, "known_hosts")
	var inv, kh strings.Builder
	inv.WriteString("[defaults]\nuser = \"root\"\nidentity_file = " + strconv.Quote(k.identity) +
		"\nknown_hosts = " + strconv.Quote(knownHosts) + "\ntags = [\"sim\"]\n")
	hostKey := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k.host.PublicKey())))
	for _, b := range boards {
		fmt.Fprintf(&inv, "\n[boards.%s]\nhost = \"127.0.0.1\"\nport = %d\n", b.name, b.port())
		line := fmt.Sprintf("[127.0.0.1]:%d %s\n", b.port(), hostKey)
		kh.WriteString(line)
		if knownHostsPerBoard {
			own := filepath.Join(work, "known_hosts."+b.name)
			if err := os.WriteFile(own, []byte(line), 0o644); err != nil {
				fatalf("%v", err)
			}
			fmt.Fprintf(&inv, "known_hosts = %s\n", strconv.Quote(own))
		}
	}
	invPath := filepath.Join(work, "boards.toml")
	if err := os.WriteFile(invPath, []byte(inv.String()), 0o644); err != nil {
		fatalf("%v", err)
	}
	if err := os.WriteFile(knownHosts, []byte(kh.String()), 0o644); err != nil {
		fatalf("%v", err)
	}
	pushed := func() (sum int64) {
		for _, b := range boards {
			sum += b.bytesReceived()
		}
		return sum
	}
	if heapProfile != "" {
		runFleet(work, "cold", fleetBin, agentBin, invPath, n)
		profileRun(work, invPath, agentBin, n, heapProfile)
		return nil
	}
	var out []sample
	for _, kind := range []string{"cold", "warm"} {
		before := pushed()
		s := runFleet(work, kind, fleetBin, agentBin, invPath, n)
		s.pushed = pushed() - before
		out = append(out, s)
	}
	return out
}

// knownHostsPerBoard (-knownhosts-per-board) gives each board a known_hosts file of its own line instead of one
// file listing every board, to show what parsing the whole file for each connection costs.
var knownHostsPerBoard bool

// heapProfile (-heapprofile): after the cold run, run the warm one in this process and profile its heap.
var heapProfile string

// extraEnv is added to the controller's environment (-env), e.g. GOMEMLIMIT=150MiB to see how much of the
// peak RSS is garbage the collector had not yet returned.
var extraEnv []string

// runFleet runs `fleet run` over the tag sim and returns its wall time and peak RSS.
func runFleet(work, kind, fleetBin, agentBin, inv string, n int) sample {
	db := filepath.Join(work, kind+".db")
	logPath := filepath.Join(work, kind+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		fatalf("%v", err)
	}
	defer logf.Close()
	// Peak RSS comes from GNU time, which forks the controller from its own small process: Go starts children
	// with CLONE_VM, and Linux keeps the parent's high-water RSS across exec in the child's ru_maxrss, so
	// ProcessState.SysUsage here would report this process's RSS (500 simulated boards) as the controller's.
	rssPath := filepath.Join(work, kind+".rss")
	cmd := exec.Command("/usr/bin/time", "-f", "%M %U %S", "-o", rssPath, fleetBin, "--inventory", inv, "--db", db, "run",
		"--tag", "sim", "--concurrency", strconv.Itoa(n), "--agent", agentBin)
	cmd.Dir = work
	cmd.Stdout, cmd.Stderr = logf, logf
	// A private HOME: no ~/.ssh/config or ssh-agent of the user's takes part.
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "SSH_AUTH_SOCK=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+filepath.Join(work, "home"))
	cmd.Env = append(cmd.Env, extraEnv...)
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if err != nil {
		os.RemoveAll(filepath.Join(work, "boards")) // fatalf's exit skips runN's removal; the log stays
		fatalf("fleet run over %d boards (%s): %v; see %s", n, kind, err, logPath)
	}
	b, err := os.ReadFile(rssPath)
	if err != nil {
		fatalf("%v", err)
	}
	var kib, user, sys float64
	if _, err := fmt.Sscan(string(b), &kib, &user, &sys); err != nil {
		fatalf("%s: %q: %v", rssPath, b, err)
	}
	return sample{kind: kind, wall: wall, rssMiB: kib / 1024, cpu: user + sys}
}
