package lab_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fleetlab/fleet/internal/buildtest"
)

// The end-to-end tests boot the QEMU lab (lab/lab) and drive the real fleet CLI against it. They take minutes and
// need qemu-system-arm, qemu-user-static, kmod, cpio, openssh-client and apt with arm64/armhf/armel enabled, so
// they run only with FLEET_LAB_E2E=1 (lab/e2e.sh sets it and stops the boards even when `go test` is killed).

func needLab(t *testing.T) {
	t.Helper()
	if os.Getenv("FLEET_LAB_E2E") != "1" {
		t.Skip("set FLEET_LAB_E2E=1 to boot the QEMU lab (see lab/README.md)")
	}
}

// repoRoot is the module root: the test runs in lab/.
// labPaths is what every lab test boots with: the repository, the lab script, the run directory (e2e.sh's
// FLEET_LAB_DIR, so that it stops the boards on every exit, or a temporary one) and the script's environment
// for the boards named.
func labPaths(t *testing.T, boards string) (root, lab, runDir string, env []string) {
	t.Helper()
	root = repoRoot(t)
	lab = filepath.Join(root, "lab", "lab")
	runDir = os.Getenv("FLEET_LAB_DIR")
	if runDir == "" {
		runDir = t.TempDir()
	}
	return root, lab, runDir, []string{"FLEET_LAB_DIR=" + runDir, "FLEET_LAB_BOARDS=" + boards}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	return root
}

// command runs name with args in dir and returns stdout; stderr goes to the test log. A non-zero exit fails the
// test unless allowFail.
func command(t *testing.T, ctx context.Context, env []string, dir, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("$ %s %s (%.1fs)\n%s%s", name, strings.Join(args, " "), time.Since(start).Seconds(), stdout.String(), stderr.String())
	return stdout.String(), err
}

func mustRun(t *testing.T, ctx context.Context, env []string, dir, name string, args ...string) string {
	t.Helper()
	out, err := command(t, ctx, env, dir, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return out
}

// point is the part of `fleet results --format json` the lab test checks.
type point struct {
	Board       string   `json:"board"`
	Mode        string   `json:"mode"`
	Algorithm   string   `json:"algorithm"`
	BlockSize   int      `json:"block_size"`
	Driver      string   `json:"driver"`
	Failed      bool     `json:"failed"`
	Error       string   `json:"error"`
	BytesPerSec float64  `json:"bytes_per_sec"`
	Validity    string   `json:"validity"`
	Reasons     []string `json:"validity_reasons"`
	Verified    string   `json:"verification"`
	VerifyNote  string   `json:"verification_detail"`
}

func TestLabEndToEnd(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	root, lab, runDir, env := labPaths(t, "qemu-arm64,qemu-armv7")
	tmp := t.TempDir()
	fleetBin := buildtest.BinaryIn(t, tmp, buildtest.Module+"/cmd/fleet")
	db := filepath.Join(tmp, "lab.db")
	inv := filepath.Join(runDir, "boards.toml")

	mustRun(t, ctx, env, root, lab, "build")
	cryptodev := imageCryptodev(t, root)
	t.Cleanup(func() {
		// Not ctx: the boards must go even when the test ran out of time.
		down, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := command(t, down, env, root, lab, "down"); err != nil {
			t.Errorf("lab down: %v", err)
		}
	})
	mustRun(t, ctx, env, root, lab, "up")
	if out := mustRun(t, ctx, env, root, lab, "status"); strings.Count(out, " up ") != 2 {
		t.Fatalf("lab status: want both boards up, got\n%s", out)
	}

	fleet := func(args ...string) string {
		t.Helper()
		return mustRun(t, ctx, nil, root, fleetBin, append([]string{"--inventory", inv, "--db", db}, args...)...)
	}
	check := fleet("boards", "check", "--all")
	for _, want := range []string{`(?m)^qemu-arm64\s+ok\s+aarch64,`, `(?m)^qemu-armv7\s+ok\s+armv7l,`} {
		if !regexp.MustCompile(want).MatchString(check) {
			t.Errorf("boards check: no line matching %s in\n%s", want, check)
		}
	}
	// No --modes: a run measures every mode the probe finds, accelerators included.
	cmd := exec.CommandContext(ctx, fleetBin, "--inventory", inv, "--db", db,
		"run", "--boards", "qemu-arm64,qemu-armv7", "--seconds", "1", "--algorithms", "aes-128-cbc,sha256")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("$ fleet run\n%s%s", out, stderr.String())
	if err != nil {
		t.Fatalf("fleet run: %v", err)
	}
	checkSummary(t, stderr.String(), cryptodev)
	checkOffloadNamed(t, stderr.String())

	var points []point
	if err := json.Unmarshal([]byte(fleet("results", "--format", "json")), &points); err != nil {
		t.Fatalf("results --format json: %v", err)
	}
	show := fleet("show", "latest")
	checkPoints(t, points, cryptodev)
	checkDevcryptoPoints(t, points, cryptodev)
	checkValidity(t, points, fleet("show", "latest", "--format", "json"))
	checkShow(t, show, cryptodev)
	checkFitsTerminal(t, fleet("compare"))
	checkSSHMode(t, ctx, root, fleetBin, inv, db)
	checkOffload(t, ctx, root, fleetBin, inv)
	checkDevcrypto(t, ctx, root, runDir, cryptodev)
}

// checkValidity: on boards without cpufreq or thermal sysfs (QEMU's virt machine) every point is judged, none is
// invalid, and the board's evidence names governor and thermal as unknown, not bad.
func checkValidity(t *testing.T, points []point, showJSON string) {
	t.Helper()
	for _, p := range points {
		if p.Validity == "" || p.Validity == "unknown" || p.Validity == "invalid" {
			t.Errorf("point %s %s %s %d B: validity %q %v, want ok or suspect", p.Board, p.Mode, p.Algorithm,
				p.BlockSize, p.Validity, p.Reasons)
		}
	}
	var run struct {
		BoardRuns []struct {
			Board string `json:"board"`
			Facts *struct {
				Evidence *struct {
					Unknown []string `json:"unknown"`
				} `json:"evidence"`
			} `json:"facts"`
		} `json:"board_runs"`
	}
	if err := json.Unmarshal([]byte(showJSON), &run); err != nil {
		t.Fatalf("show --format json: %v", err)
	}
	for _, br := range run.BoardRuns {
		if br.Facts == nil || br.Facts.Evidence == nil {
			t.Errorf("%s: no evidence in the board's facts", br.Board)
			continue
		}
		unknown := strings.Join(br.Facts.Evidence.Unknown, "; ")
		for _, want := range []string{"cpufreq", "thermal"} {
			if !strings.Contains(unknown, want) {
				t.Errorf("%s: evidence unknown = %q, want %s named as unknown", br.Board, unknown, want)
			}
		}
	}
}

// checkFitsTerminal: on the lab's run, `fleet compare` (the same tables `fleet run` ends with) prints nothing
// wider than 100 columns, and sets the two boards against each other.
func checkFitsTerminal(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("compare prints a line %d columns wide, want ≤ 100:\n%s", n, line)
		}
	}
	if !strings.Contains(out, "board against board") {
		t.Errorf("compare does not set the boards against each other:\n%s", out)
	}
}

// checkSummary: the line under each board says honestly what was measured and what the board lacks: devcrypto
// for want of /dev/crypto, except on qemu-arm64 with its cryptodev module and the lab's devcrypto engine, which
// measures it.
func checkSummary(t *testing.T, stderr, cryptodev string) {
	t.Helper()
	for _, board := range []string{"qemu-arm64", "qemu-armv7"} {
		want := `(?m)^  ` + board + `\s+(ok|suspect|invalid)\s.*\n(?:      \S.*\n)?\s+measured soft, cpu, afalg, kcapi; not available: devcrypto \(no /dev/crypto\)$`
		if hasDevcrypto(board, cryptodev) {
			want = `(?m)^  ` + board + `\s+(ok|suspect|invalid)\s.*\n(?:      \S.*\n)?\s+measured soft, cpu, devcrypto, afalg, kcapi$`
		}
		if !regexp.MustCompile(want).MatchString(stderr) {
			t.Errorf("fleet run: no summary matching %s in\n%s", want, stderr)
		}
	}
}

// checkOffloadNamed: both boards' kernels (Debian arm64 and armmp-lpae) drive the virtio-crypto device, and the
// run's summary names the driver, with the mode that would measure it, since a run without --modes leaves it out.
func checkOffloadNamed(t *testing.T, stderr string) {
	t.Helper()
	for _, board := range []string{"qemu-arm64", "qemu-armv7"} {
		// any validity: a suspect point on a busy host is checkSummary's business, not the offload line's
		want := `(?m)^  ` + board + `\s+(ok|suspect|invalid)\s.*\n(\s{6,}\S.*\n)*\s+offload: virtio_crypto_aes_cbc \(not asked: --modes kcapi:virtio_crypto_aes_cbc\)$`
		if !regexp.MustCompile(want).MatchString(stderr) {
			t.Errorf("fleet run: %s: no line \"offload: virtio_crypto_aes_cbc (not asked: …)\" in\n%s", board, stderr)
		}
	}
}

// notApplicable are the (mode, algorithm) pairs that must be skips, not points: stock OpenSSL's afalg engine
// offloads AES-CBC only.
var notApplicable = map[[2]string]bool{{"afalg", "sha256"}: true}

func checkPoints(t *testing.T, points []point, cryptodev string) {
	t.Helper()
	if len(points) == 0 {
		t.Fatal("results: no points")
	}
	type series struct{ board, mode, alg string }
	sizes := map[series]map[int]bool{}
	allSizes := map[int]bool{}
	for _, p := range points {
		if p.Failed || p.BytesPerSec <= 0 {
			t.Errorf("point %s %s %s %d B: failed=%v error=%q rate=%v", p.Board, p.Mode, p.Algorithm, p.BlockSize,
				p.Failed, p.Error, p.BytesPerSec)
		}
		s := series{p.Board, p.Mode, p.Algorithm}
		if sizes[s] == nil {
			sizes[s] = map[int]bool{}
		}
		sizes[s][p.BlockSize] = true
		allSizes[p.BlockSize] = true
		if notApplicable[[2]string{p.Mode, p.Algorithm}] {
			t.Errorf("point %s %s %s: want a skip, not a point", p.Board, p.Mode, p.Algorithm)
		}
		if p.Mode == "afalg" || p.Mode == "kcapi" || p.Mode == "devcrypto" {
			checkDriver(t, p)
		}
		// every path of both boards, the real kernels' drivers included, gives the right answers, also under
		// the concurrency check of the accelerated modes
		if p.Verified != "ok" {
			t.Errorf("point %s %s %s %d B: verification %q (%s), want ok", p.Board, p.Mode, p.Algorithm, p.BlockSize,
				p.Verified, p.VerifyNote)
		}
	}
	if len(allSizes) < 2 {
		t.Errorf("results: block sizes %v, want the profile's several sizes", keys(allSizes))
	}
	for _, board := range []string{"qemu-arm64", "qemu-armv7"} {
		modes := []string{"soft", "cpu", "afalg", "kcapi"}
		if hasDevcrypto(board, cryptodev) {
			modes = append(modes, "devcrypto")
		}
		for _, mode := range modes {
			for _, alg := range []string{"aes-128-cbc", "sha256"} {
				if notApplicable[[2]string{mode, alg}] {
					continue
				}
				got := sizes[series{board, mode, alg}]
				for size := range allSizes {
					if !got[size] {
						t.Errorf("results: no point for %s %s %s %d B", board, mode, alg, size)
					}
				}
			}
		}
	}
}

// checkDevcryptoPoints: with its cryptodev module and the lab's devcrypto engine (lab/devcrypto), qemu-arm64
// measures devcrypto, aes-128-cbc and sha256, through /dev/crypto: every point stored with a driver (checkDriver:
// the one cryptodev names, cbc-aes-ce and sha256-ce), not failed (openssl did not fall back to software), and with
// the verification of the very path (openssl enc/dgst -engine devcrypto) ok. Without the module no board has a
// devcrypto point.
func checkDevcryptoPoints(t *testing.T, points []point, cryptodev string) {
	t.Helper()
	n := map[string]int{}
	for _, p := range points {
		if p.Mode != "devcrypto" {
			continue
		}
		if !hasDevcrypto(p.Board, cryptodev) {
			t.Errorf("point %s devcrypto %s %d B: this board has no /dev/crypto", p.Board, p.Algorithm, p.BlockSize)
			continue
		}
		n[p.Algorithm]++
		if p.Failed || p.Verified != "ok" || p.Driver == "" {
			t.Errorf("point qemu-arm64 devcrypto %s %d B: failed %v (%s), verification %q (%s), driver %q; "+
				"want measured through /dev/crypto, verification ok, cryptodev's driver", p.Algorithm, p.BlockSize,
				p.Failed, p.Error, p.Verified, p.VerifyNote, p.Driver)
		}
	}
	if cryptodev == "" {
		return
	}
	for _, alg := range []string{"aes-128-cbc", "sha256"} {
		if n[alg] == 0 {
			t.Errorf("results: qemu-arm64 has no devcrypto %s point (its image has %s and the devcrypto engine)", alg, cryptodev)
		}
	}
}

// checkDriver: the kernel driver that served an AF_ALG or /dev/crypto point. qemu-arm64 (-cpu max) has the ARMv8 crypto
// extensions; qemu-armv7 (cortex-a15) has none, so a *-ce driver there would be a lie.
func checkDriver(t *testing.T, p point) {
	t.Helper()
	want := map[[2]string]string{
		{"qemu-arm64", "aes-128-cbc"}: "cbc-aes-ce",
		{"qemu-arm64", "sha256"}:      "sha256-ce",
	}[[2]string{p.Board, p.Algorithm}]
	switch {
	case want != "" && p.Driver != want:
		t.Errorf("%s %s %s %d B: driver %q, want %q", p.Board, p.Mode, p.Algorithm, p.BlockSize, p.Driver, want)
	case p.Board == "qemu-armv7" && (p.Driver == "" || strings.Contains(p.Driver, "-ce")):
		t.Errorf("%s %s %s %d B: driver %q, want a NEON or generic one", p.Board, p.Mode, p.Algorithm, p.BlockSize, p.Driver)
	}
}

// checkShow: `fleet show latest` has, per board, the machine the agent saw and the skips with their reasons.
func checkShow(t *testing.T, show, cryptodev string) {
	t.Helper()
	blocks := map[string]string{}
	for _, b := range regexp.MustCompile(`(?m)^board `).Split(show, -1)[1:] {
		name, _, _ := strings.Cut(b, "\n")
		blocks[strings.TrimSpace(name)] = b
	}
	for board, machine := range map[string]string{"qemu-arm64": "aarch64", "qemu-armv7": "armv7l"} {
		b, ok := blocks[board]
		if !ok {
			t.Errorf("show latest: no board %s in\n%s", board, show)
			continue
		}
		if !regexp.MustCompile(`(?m)^\s+machine:\s+` + machine + `$`).MatchString(b) {
			t.Errorf("show latest: %s: want machine %s in\n%s", board, machine, b)
		}
		if !regexp.MustCompile(`(?m)^\s+afalg sha256: \S`).MatchString(b) {
			t.Errorf("show latest: %s: want the skip \"afalg sha256: <reason>\" in\n%s", board, b)
		}
		// devcrypto was not named, yet its absence is recorded with the probe's reason
		skip := regexp.MustCompile(`(?m)^\s+devcrypto \(all\): .*$`).FindString(b)
		switch {
		case hasDevcrypto(board, cryptodev) && skip != "":
			t.Errorf("show latest: %s: devcrypto skipped (%s), want it measured", board, strings.TrimSpace(skip))
		case !hasDevcrypto(board, cryptodev) && !strings.HasSuffix(skip, "devcrypto (all): no /dev/crypto"):
			t.Errorf("show latest: %s: want the skip \"devcrypto (all): no /dev/crypto\" in\n%s", board, b)
		}
	}
}

func keys(m map[int]bool) []int {
	var ks []int
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// TestARMv5Probe: the am18x class of boards is ARMv5 (ARM926EJ-S). The GOARM=5 agent's probe must run there, with
// the openssl it starts (Debian armel) on the same core; a GOARM=7 agent must not start on it.
func TestARMv5Probe(t *testing.T) {
	needLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root := repoRoot(t)
	tmp := t.TempDir()
	build := func(goarm string) string {
		dir := filepath.Join(tmp, "goarm"+goarm)
		return buildtest.BinaryIn(t, dir, buildtest.Module+"/cmd/fleet-agent",
			"CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm", "GOARM="+goarm)
	}
	out := mustRun(t, ctx, nil, root, filepath.Join(root, "lab", "lab"), "armv5-probe", build("5"))
	var hello, facts map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("probe line %q: %v", line, err)
		}
		switch m["type"] {
		case "hello":
			hello = m
		case "facts":
			facts = m
		}
	}
	if got, want := hello["goarm"], "5"; got != want {
		t.Errorf("hello goarm = %v, want %v", got, want)
	}
	if got, want := facts["machine"], "armv5tel"; got != want {
		t.Errorf("facts machine = %v, want %v", got, want)
	}
	// FLEET_LAB_ARMV5=direct (no user namespaces, e.g. an unprivileged container): only the agent is ARM there.
	if build, _ := facts["openssl_build"].(string); os.Getenv("FLEET_LAB_ARMV5") != "direct" &&
		!strings.Contains(build, "platform: debian-armel") {
		t.Errorf("facts openssl_build = %q, want Debian armel's openssl running on the ARM926", build)
	}

	if _, err := command(t, ctx, nil, root, filepath.Join(root, "lab", "lab"), "armv5-probe", build("7")); err == nil {
		t.Errorf("a GOARM=7 agent ran on the arm926 core: the CPU model is not enforced")
	}
}
