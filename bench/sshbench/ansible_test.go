package sshbench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetlab/fleet/bench/internal/machine"
	"github.com/fleetlab/fleet/internal/buildtest"
	"github.com/fleetlab/fleet/internal/sshlab"
)

// speedCmd is the measurement both tools fan out: 1 s of AES-128-CBC on 1 KiB blocks.
const speedCmd = "openssl speed -elapsed -seconds 1 -bytes 1024 -evp aes-128-cbc"

// TestBenchAnsible fans the same `openssl speed` out to three real sshd boards with `ansible -m raw` and with
// `fleet run`, rounds interleaved (the order rotates each round), and prints each tool's overhead beyond the 1 s
// of measurement. Ansible runs twice per round: as shipped (ssh ControlPersist=60s, so after the first round it
// reuses its connections) and with ControlMaster=no (a new connection per run, as fleet makes). One untimed
// warm-up of each comes first: fleet's pushes the agent, Ansible's fills its caches.
func TestBenchAnsible(t *testing.T) {
	smokeRun := needBench(t)
	if _, err := exec.LookPath("ansible"); err != nil {
		t.Skip("ansible not installed (apt-get install -y ansible)")
	}
	rounds := benchRounds(t, 7, smokeRun)
	lab := sshlab.Start(t, sshlab.Options{})
	dir := t.TempDir()
	fleetBin := buildtest.BinaryIn(t, dir, buildtest.Module+"/cmd/fleet")
	agentPath := buildAgent(t, dir)
	inv := filepath.Join(dir, "boards.toml")
	if err := os.WriteFile(inv, []byte(lab.BoardsTOML()), 0o644); err != nil {
		t.Fatal(err)
	}
	ansInv := filepath.Join(dir, "hosts.ini")
	hosts := "[boards]\nboard1\nboard2\nboard3\n\n[boards:vars]\nansible_ssh_common_args='-F " + lab.SSHConfig + "'\n"
	if err := os.WriteFile(ansInv, []byte(hosts), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	env := []string{"HOME=" + home, "ANSIBLE_LOCAL_TEMP=" + filepath.Join(dir, "ansible-tmp"),
		"ANSIBLE_SSH_CONTROL_PATH_DIR=" + filepath.Join(dir, "cp"), "ANSIBLE_NOCOLOR=1"}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "HOME=") && !strings.HasPrefix(e, "SSH_AUTH_SOCK=") && !strings.HasPrefix(e, "ANSIBLE_") {
			env = append(env, e)
		}
	}
	run := func(what string, extraEnv []string, argv ...string) time.Duration {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(append([]string{}, env...), extraEnv...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		d := time.Since(start)
		if err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out.String())
		}
		if strings.HasPrefix(what, "ansible") && strings.Count(out.String(), "CHANGED") != 3 {
			t.Fatalf("%s: not three boards measured:\n%s", what, out.String())
		}
		return d
	}
	tools := []struct {
		name string
		env  []string
		argv []string
	}{
		{"fleet", nil, []string{fleetBin, "--inventory", inv, "--db", filepath.Join(dir, "fleet.db"), "run",
			"--boards", "board1,board2,board3", "--seconds", "1", "--sizes", "1024", "--algorithms", "aes-128-cbc",
			"--modes", "cpu", "--agent", agentPath}},
		{"ansible", nil, []string{"ansible", "all", "-i", ansInv, "-m", "raw", "-a", speedCmd}},
		{"ansible-nocp", []string{"ANSIBLE_SSH_ARGS=-o ControlMaster=no"}, []string{"ansible", "all", "-i", ansInv, "-m", "raw", "-a", speedCmd}},
	}

	fmt.Println(machine.Describe())
	fmt.Printf("boards board1..3 (OpenSSH sshd, network namespaces %v); measured: %s\n", lab.Namespaced, speedCmd)
	fmt.Printf("fleet: %s\nansible: %s\n\n", strings.Join(tools[0].argv[5:], " "), strings.Join(tools[1].argv, " "))
	for _, tl := range tools {
		d := run(tl.name, tl.env, tl.argv...)
		fmt.Printf("warm-up %-13s %7.3f s (not counted)\n", tl.name, secs(d))
	}
	fmt.Printf("\n%-5s %-13s %8s %10s\n", "round", "tool", "wall_s", "overhead_s")
	over := map[string][]float64{}
	for r := 0; r < rounds; r++ {
		for i := range tools {
			tl := tools[(i+r)%len(tools)]
			d := run(tl.name, tl.env, tl.argv...)
			over[tl.name] = append(over[tl.name], secs(d)-1)
			fmt.Printf("%-5d %-13s %8.3f %10.3f\n", r+1, tl.name, secs(d), secs(d)-1)
		}
	}
	f, a, n := median(over["fleet"]), median(over["ansible"]), median(over["ansible-nocp"])
	fmt.Printf("\nmedian overhead beyond the 1 s measurement over %d rounds: fleet %.3f s, ansible %.3f s, ansible without ControlPersist %.3f s\n", rounds, f, a, n)
	fmt.Printf("ratio fleet/ansible %.2f, fleet/ansible-without-ControlPersist %.2f\n", f/a, f/n)
}
