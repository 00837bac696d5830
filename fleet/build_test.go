package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// tinyAgentSource is a module shaped like fleet's agent source: go.mod, an agent package and cmd/fleet-agent.
func tinyAgentSource(greeting string) fstest.MapFS {
	return fstest.MapFS{
		"go.mod":                       {Data: []byte("module example.com/tinyagent\n\ngo 1.26\n")},
		"agent/agent.go":               {Data: []byte("package agent\n\nconst Greeting = " + fmt.Sprintf("%q", greeting) + "\n")},
		"agent/agent_test.go":          {Data: []byte("package agent\n")},
		"agent/testdata/capture.txt":   {Data: []byte("not source")},
		"cmd/fleet-agent/main.go":      {Data: []byte("package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/tinyagent/agent\"\n)\n\nfunc main() { fmt.Println(agent.Greeting) }\n")},
		"cmd/fleet-agent/main_test.go": {Data: []byte("package main\n")},
	}
}

func TestAgentSourceHash(t *testing.T) {
	base, err := AgentSourceHash(tinyAgentSource("hello"))
	if err != nil {
		t.Fatal(err)
	}
	same := tinyAgentSource("hello")
	same["agent/agent_test.go"] = &fstest.MapFile{Data: []byte("package agent // changed test\n")}
	same["agent/testdata/capture.txt"] = &fstest.MapFile{Data: []byte("changed capture")}
	if got, _ := AgentSourceHash(same); got != base {
		t.Errorf("hash changed with a test file or testdata: %s, want %s", got, base)
	}
	if got, _ := AgentSourceHash(tinyAgentSource("hello, world")); got == base {
		t.Errorf("hash did not change with the source")
	}
	moved := tinyAgentSource("hello")
	moved["agent/extra.go"] = moved["agent/agent.go"]
	delete(moved, "agent/agent.go")
	if got, _ := AgentSourceHash(moved); got == base {
		t.Errorf("hash did not change when a file was renamed")
	}
	incomplete := tinyAgentSource("hello")
	delete(incomplete, "cmd/fleet-agent/main.go")
	if _, err := AgentSourceHash(incomplete); err == nil {
		t.Errorf("AgentSourceHash without cmd/fleet-agent: no error")
	}
}

func TestFindGo(t *testing.T) {
	exists := func(have ...string) func(string) (string, error) {
		return func(p string) (string, error) {
			for _, h := range have {
				if p == h {
					return "/found/" + p, nil
				}
			}
			return "", exec.ErrNotFound
		}
	}
	tests := []struct {
		name, goBin, goroot string
		have                []string
		want                string
	}{
		{"on PATH", "", "/opt/go", []string{"go", "/opt/go/bin/go"}, "/found/go"},
		{"GOROOT", "", "/opt/go", []string{"/opt/go/bin/go", "/usr/local/go/bin/go"}, "/found//opt/go/bin/go"},
		{"usr local", "", "", []string{"/usr/local/go/bin/go"}, "/found//usr/local/go/bin/go"},
		{"explicit", "/my/go", "", []string{"/my/go", "go"}, "/found//my/go"},
		{"none", "", "/opt/go", nil, ""},
		{"explicit missing", "/my/go", "", []string{"go"}, ""},
	}
	for _, tt := range tests {
		got, err := findGo(tt.goBin, exists(tt.have...), tt.goroot)
		if tt.want == "" {
			if !errors.Is(err, ErrNoGoToolchain) {
				t.Errorf("%s: findGo = %q, %v; want ErrNoGoToolchain", tt.name, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: findGo = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if msg := ErrNoGoToolchain.Error(); !strings.Contains(msg, "install Go") || !strings.Contains(msg, "--agent PATH") {
		t.Errorf("ErrNoGoToolchain = %q does not say what to do", msg)
	}
}

func TestBuildEnv(t *testing.T) {
	env := buildEnv([]string{"PATH=/bin", "GOFLAGS=-mod=vendor", "GOARCH=mips", "GOAMD64=v3", "CGO_ENABLED=1", "GOPROXY=off"}, Target{GOOS: "linux", GOARCH: "arm", GOARM: "5"})
	got := strings.Join(env, " ")
	for _, want := range []string{"PATH=/bin", "GOPROXY=off", "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm", "GOARM=5", "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("buildEnv lacks %s: %s", want, got)
		}
	}
	mips := strings.Join(buildEnv([]string{"GOMIPS=hardfloat"}, Target{GOOS: "linux", GOARCH: "mipsle", GOMIPS: "softfloat"}), " ")
	if !strings.Contains(mips, "GOMIPS=softfloat") || strings.Contains(mips, "hardfloat") {
		t.Errorf("buildEnv for mipsle/softfloat = %s, want GOMIPS=softfloat only", mips)
	}
	amd64 := strings.Join(buildEnv([]string{"GOAMD64=v3"}, Target{GOOS: "linux", GOARCH: "amd64"}), " ")
	if !strings.Contains(amd64, "GOAMD64=v1") || strings.Contains(amd64, "v3") {
		t.Errorf("buildEnv for amd64 = %s, want GOAMD64=v1 only", amd64)
	}
	for _, bad := range []string{"-mod=vendor", "mips", "GOAMD64", "CGO_ENABLED=1"} {
		if strings.Contains(got, bad) {
			t.Errorf("buildEnv keeps %s: %s", bad, got)
		}
	}
}

// TestBuildAgentCache builds a tiny agent for the host, then checks the cache: a hit without the toolchain, a
// rebuild when the source changes.
func TestBuildAgentCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go programs")
	}
	ctx := context.Background()
	host, err := DetectArch(ctx, &hostTransport{home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	target, _ := TargetForArch(host)
	cache := t.TempDir()
	var log bytes.Buffer
	opts := BuildOptions{Target: target, CacheDir: cache, Source: tinyAgentSource("hello"),
		Logf: func(f string, a ...any) { fmt.Fprintf(&log, f+"\n", a...) }}
	first, err := BuildAgent(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(first).Output(); err != nil || string(out) != "hello\n" {
		t.Errorf("built agent printed %q, %v; want hello", out, err)
	}
	fi1, _ := os.Stat(first)

	noGo := opts
	noGo.GoBin = filepath.Join(t.TempDir(), "no-such-go")
	second, err := BuildAgent(ctx, noGo)
	if err != nil || second != first {
		t.Fatalf("cached build without a toolchain = %q, %v; want %q", second, err, first)
	}
	if fi2, _ := os.Stat(second); !fi2.ModTime().Equal(fi1.ModTime()) {
		t.Errorf("cached agent was rewritten")
	}
	if !strings.Contains(log.String(), "cached") {
		t.Errorf("log does not say the agent was cached:\n%s", log.String())
	}

	noGo.Source = tinyAgentSource("hello again")
	if _, err := BuildAgent(ctx, noGo); !errors.Is(err, ErrNoGoToolchain) {
		t.Errorf("uncached build without a toolchain = %v, want ErrNoGoToolchain", err)
	}
	opts.Source = noGo.Source
	third, err := BuildAgent(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if third == first {
		t.Errorf("changed source reused the cached agent %s", first)
	}
	if out, _ := exec.Command(third).Output(); string(out) != "hello again\n" {
		t.Errorf("rebuilt agent printed %q, want the new source's greeting", out)
	}
	if left, _ := filepath.Glob(filepath.Join(cache, ".src-*")); len(left) != 0 {
		t.Errorf("extracted source left in the cache: %v", left)
	}

	broken := tinyAgentSource("x")
	broken["agent/agent.go"] = &fstest.MapFile{Data: []byte("package agent\n\nconst Greeting = \n")}
	opts.Source = broken
	if _, err := BuildAgent(ctx, opts); err == nil || !strings.Contains(err.Error(), "agent.go") {
		t.Errorf("build of broken source = %v, want the compiler's message", err)
	}
}

// TestBuildAgentCross cross-compiles for ARM and checks each result against every board architecture: an agent
// runs on its own arch and, for 32-bit ARM, on newer ones.
func TestBuildAgentCross(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles Go programs")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cache := t.TempDir()
	built := map[string]string{}
	for _, arch := range []string{"armv5", "armv7", "arm64"} {
		target, _ := TargetForArch(arch)
		p, err := BuildAgent(ctx, BuildOptions{Target: target, CacheDir: cache, Source: tinyAgentSource("hi")})
		if err != nil {
			t.Fatalf("build for %s: %v", arch, err)
		}
		built[arch] = p
	}
	// Where QEMU's user-mode emulator is installed, run them: on an ARM926 (ARMv5TEJ, as on an AM18x) only the
	// armv5 agent starts, which is the rule AgentFromFile enforces below.
	emulated := []struct {
		qemu, cpu, arch string
		ok              bool
	}{
		{"qemu-arm-static", "arm926", "armv5", true},
		{"qemu-arm-static", "arm926", "armv7", false},
		{"qemu-arm-static", "cortex-a8", "armv7", true},
		{"qemu-aarch64-static", "cortex-a53", "arm64", true},
	}
	for _, e := range emulated {
		if _, err := exec.LookPath(e.qemu); err != nil {
			t.Logf("%s not installed: not running the %s agent", e.qemu, e.arch)
			continue
		}
		out, err := exec.CommandContext(ctx, e.qemu, "-cpu", e.cpu, built[e.arch]).CombinedOutput()
		if got := err == nil && string(out) == "hi\n"; got != e.ok {
			t.Errorf("%s agent on an emulated %s: %v, %q; want ok=%v", e.arch, e.cpu, err, out, e.ok)
		}
	}

	runsOn := map[string][]string{"armv5": {"armv5", "armv6", "armv7"}, "armv7": {"armv7"}, "arm64": {"arm64"}}
	for binArch, p := range built {
		for _, boardArch := range []string{"armv5", "armv6", "armv7", "arm64", "amd64", "386"} {
			target, _ := TargetForArch(boardArch)
			_, err := AgentFromFile(p, target)
			want := false
			for _, a := range runsOn[binArch] {
				want = want || a == boardArch
			}
			if got := err == nil; got != want {
				t.Errorf("AgentFromFile(%s agent, %s board) = %v, want ok=%v", binArch, boardArch, err, want)
			}
			if err != nil && !errors.Is(err, ErrWrongBinary) {
				t.Errorf("AgentFromFile(%s agent, %s board) = %v, want ErrWrongBinary", binArch, boardArch, err)
			}
		}
	}
}

// TestBuildAgentEmbedded builds the real agent from the source embedded in the controller and runs it.
func TestBuildAgentEmbedded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	ctx := context.Background()
	target := Target{GOOS: "linux", GOARCH: "amd64"}
	if out, _ := exec.Command("uname", "-m").Output(); strings.TrimSpace(string(out)) != "x86_64" {
		t.Skip("runs an amd64 agent")
	}
	p, err := BuildAgent(ctx, BuildOptions{Target: target, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	hash, err := AgentSourceHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, hash[:16]) {
		t.Errorf("agent path %s does not carry the source hash %s", p, hash[:16])
	}
	want, _, _ := fileSHA256(p)
	out, err := exec.Command(p, "sha256", p).Output()
	if err != nil {
		t.Fatalf("%s sha256: %v", p, err)
	}
	if got := firstHexSum(string(out)); got != want {
		t.Errorf("agent sha256 of itself = %q, want %s", out, want)
	}
}

func TestPruneAgentCache(t *testing.T) {
	cache := t.TempDir()
	old, recent := time.Now().Add(-30*24*time.Hour), time.Now().Add(-time.Hour)
	dirs := []struct {
		name  string
		mtime time.Time
		kept  bool
	}{
		{"0123456789abcdef", old, true}, // the one in use
		{"fedcba9876543210", old, false},
		{"00112233445566aa", recent, true},
		{".src-123", old, false},
		{"notes", old, true}, // not ours
	}
	for _, d := range dirs {
		p := filepath.Join(cache, d.name)
		if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, d.mtime, d.mtime)
	}
	pruneAgentCache(cache, "0123456789abcdef", time.Now().Add(-cacheMaxAge), t.Logf)
	for _, d := range dirs {
		_, err := os.Stat(filepath.Join(cache, d.name))
		if got := err == nil; got != d.kept {
			t.Errorf("%s kept = %v, want %v", d.name, got, d.kept)
		}
	}
}

func TestAgentFromFileErrors(t *testing.T) {
	dir := t.TempDir()
	arm64 := Target{GOOS: "linux", GOARCH: "arm64"}
	if _, err := AgentFromFile(dir, arm64); err == nil {
		t.Errorf("AgentFromFile(directory): no error")
	}
	if _, err := AgentFromFile(filepath.Join(dir, "missing"), arm64); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("AgentFromFile(missing) = %v, want ErrNotExist", err)
	}
}
