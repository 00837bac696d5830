// Package nightly holds only the tests of the nightly recipe in this directory.
package nightly

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestSystemdUnitsVerify runs systemd-analyze verify on the service and timer. The copy it verifies runs this
// directory's script instead of the installed path, and has no User= (user fleet need not exist here).
func TestSystemdUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed (apt-get install systemd)")
	}
	dir := t.TempDir()
	script, err := filepath.Abs("fleet-nightly.sh")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := os.ReadFile("fleet-nightly.service")
	if err != nil {
		t.Fatal(err)
	}
	const start = "ExecStart=/bin/sh /usr/local/lib/fleet/fleet-nightly.sh"
	if !strings.Contains(string(svc), start) {
		t.Fatalf("fleet-nightly.service lacks %q", start)
	}
	local := strings.Replace(string(svc), start, "ExecStart=/bin/sh "+script, 1)
	// User=fleet need not exist on the machine that runs the tests
	local = strings.Replace(local, "User=fleet\n", "", 1)
	timer, err := os.ReadFile("fleet-nightly.timer")
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"fleet-nightly.service": local, "fleet-nightly.timer": string(timer)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(analyze, "verify", "--man=no", filepath.Join(dir, "fleet-nightly.service"), filepath.Join(dir, "fleet-nightly.timer"))
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestGitLabJob parses the CI job as YAML and checks it runs the recipe's commands with the exit codes the
// README explains.
func TestGitLabJob(t *testing.T) {
	b, err := os.ReadFile("gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		t.Fatalf("gitlab-ci.yml is not valid YAML: %v", err)
	}
	job, ok := raw["fleet-nightly"].(map[string]any)
	if !ok {
		t.Fatalf("gitlab-ci.yml has no fleet-nightly job: %v", raw)
	}
	jb, _ := yaml.Marshal(job)
	var j struct {
		Script       []string `yaml:"script"`
		AllowFailure struct {
			ExitCodes []int `yaml:"exit_codes"`
		} `yaml:"allow_failure"`
		Artifacts struct {
			Reports struct {
				JUnit string `yaml:"junit"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal(jb, &j); err != nil {
		t.Fatal(err)
	}
	script := strings.Join(j.Script, "\n")
	for _, want := range []string{"fleet run --tag nightly --profile nightly --label nightly", "fleet regress --baseline nightly", "--confirm", "--junit"} {
		if !strings.Contains(script, want) {
			t.Errorf("the job's script lacks %q:\n%s", want, script)
		}
	}
	if len(j.AllowFailure.ExitCodes) != 1 || j.AllowFailure.ExitCodes[0] != 4 {
		t.Errorf("allow_failure exit codes = %v, want [4] (not judged: invalid)", j.AllowFailure.ExitCodes)
	}
	if j.Artifacts.Reports.JUnit != "regress.xml" {
		t.Errorf("JUnit report = %q, want regress.xml", j.Artifacts.Reports.JUnit)
	}
}

// TestScriptParses checks the shared script with sh -n and that it runs the recipe's commands.
func TestScriptParses(t *testing.T) {
	if out, err := exec.Command("sh", "-n", "fleet-nightly.sh").CombinedOutput(); err != nil {
		t.Fatalf("sh -n fleet-nightly.sh: %v\n%s", err, out)
	}
	b, err := os.ReadFile("fleet-nightly.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fleet run --tag nightly --profile nightly --label nightly", "fleet regress --baseline nightly --run nightly --confirm --junit"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("fleet-nightly.sh lacks %q", want)
		}
	}
}
