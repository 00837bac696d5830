package fleet

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	fleetsrc "github.com/fleetlab/fleet"
	"github.com/fleetlab/fleet/agent"
)

// ErrNoGoToolchain is returned by BuildAgent when no go command is found; its message says what to do instead.
var ErrNoGoToolchain = errors.New("no Go toolchain found: install Go 1.26+ (https://go.dev/dl) or pass --agent PATH with a prebuilt fleet-agent")

// BuildOptions configures BuildAgent.
type BuildOptions struct {
	Target Target
	// CacheDir holds built agents, keyed by agent source hash and target (default os.UserCacheDir()/fleet/agents).
	CacheDir string
	// GoBin is the go command (default: "go" on PATH, then $GOROOT/bin/go, then /usr/local/go/bin/go).
	GoBin string
	// Source is the agent's module source: go.mod, go.sum, agent/ and cmd/fleet-agent/ (default: the source embedded
	// in this binary, so an installed controller builds the agent of its own version without a checkout).
	Source fs.FS
	// Logf receives what the build does; nil discards it.
	Logf func(format string, args ...any)
}

// agentPackage is the main package built, relative to the source module root.
const agentPackage = "./cmd/fleet-agent"

// BuildAgent returns the path of a fleet-agent for opts.Target, building it with the host's Go toolchain
// (CGO_ENABLED=0, agent.BuildFlags) only when the cache has none for this source hash and target. The
// source is extracted into a temporary module directory under the cache, so the build works the same from a source
// checkout and from an installed binary. The result's ELF header is checked against the target.
func BuildAgent(ctx context.Context, opts BuildOptions) (string, error) {
	t := opts.Target
	if t.GOOS == "" {
		t.GOOS = "linux"
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	src := opts.Source
	if src == nil {
		src = defaultAgentSource()
	}
	files, err := agentSourceFiles(src)
	if err != nil {
		return "", fmt.Errorf("build agent for %s: %w", t, err)
	}
	hash := hashSources(files)
	cacheDir, err := agentCacheDir(opts.CacheDir)
	if err != nil {
		return "", fmt.Errorf("build agent for %s: %w", t, err)
	}
	dir := filepath.Join(cacheDir, hash[:16])
	out := filepath.Join(dir, "fleet-agent-"+strings.ReplaceAll(t.String(), "/", "-"))
	if _, err := os.Stat(out); err == nil {
		if err := CheckELF(out, t); err == nil {
			now := time.Now()
			os.Chtimes(dir, now, now) // in use: pruneAgentCache keeps it
			logf("agent for %s cached: %s", t, out)
			return out, nil
		}
		logf("cached agent %s does not fit %s: rebuilding", out, t)
	}

	goBin, err := findGo(opts.GoBin, exec.LookPath, os.Getenv("GOROOT"))
	if err != nil {
		return "", fmt.Errorf("build agent for %s: %w", t, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build agent for %s: %w", t, err)
	}
	modDir, err := os.MkdirTemp(cacheDir, ".src-")
	if err != nil {
		return "", fmt.Errorf("build agent for %s: %w", t, err)
	}
	defer os.RemoveAll(modDir)
	if err := extract(modDir, files); err != nil {
		return "", fmt.Errorf("build agent for %s: %w", t, err)
	}

	logf("building agent for %s (source %s) with %s", t, hash[:12], goBin)
	start := time.Now()
	tmp := filepath.Join(dir, ".build-"+filepath.Base(modDir))
	defer os.Remove(tmp)
	var stderr bytes.Buffer
	args := append(append([]string{"build"}, agent.BuildFlags...), "-o", tmp, agentPackage)
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = modDir
	cmd.Env = buildEnv(os.Environ(), t)
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("build agent for %s: %w", t, ctx.Err())
		}
		return "", fmt.Errorf("build agent for %s: %s build: %w\n%s", t, goBin, err, strings.TrimSpace(stderr.String()))
	}
	if err := CheckELF(tmp, t); err != nil {
		return "", fmt.Errorf("build agent for %s: %w", t, err)
	}
	// Rename last, so a cancelled or concurrent build never leaves a half-written agent under the cached name.
	if err := os.Rename(tmp, out); err != nil {
		return "", fmt.Errorf("build agent for %s: %w", t, err)
	}
	if fi, err := os.Stat(out); err == nil {
		logf("built agent for %s in %.1fs: %s (%d bytes)", t, time.Since(start).Seconds(), out, fi.Size())
	}
	pruneAgentCache(cacheDir, filepath.Base(dir), time.Now().Add(-cacheMaxAge), logf)
	return out, nil
}

// AgentFromFile checks a prebuilt agent (--agent PATH) against the board's target and returns its absolute path.
func AgentFromFile(path string, want Target) (string, error) {
	if want.GOOS == "" {
		want.GOOS = "linux"
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("agent %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("agent %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("agent %s: not a regular file", path)
	}
	if err := CheckELF(abs, want); err != nil {
		return "", err // names the file
	}
	return abs, nil
}

// defaultAgentSource is the agent source embedded in this binary.
func defaultAgentSource() fs.FS { return fleetsrc.FS }

// agentCacheDir returns dir, or the default under the user cache directory.
func agentCacheDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("agent cache: %w (set XDG_CACHE_HOME or HOME)", err)
	}
	return filepath.Join(base, "fleet", "agents"), nil
}

// findGo returns the go command: goBin when given, else "go" on PATH, $GOROOT/bin/go, /usr/local/go/bin/go.
func findGo(goBin string, lookPath func(string) (string, error), goroot string) (string, error) {
	if goBin != "" {
		p, err := lookPath(goBin)
		if err != nil {
			return "", fmt.Errorf("%w (go command %s: %v)", ErrNoGoToolchain, goBin, err)
		}
		return p, nil
	}
	if p, err := lookPath("go"); err == nil {
		return p, nil
	}
	var candidates []string
	if goroot != "" {
		candidates = append(candidates, filepath.Join(goroot, "bin", "go"))
	}
	candidates = append(candidates, "/usr/local/go/bin/go")
	for _, c := range candidates {
		if p, err := lookPath(c); err == nil {
			return p, nil
		}
	}
	return "", ErrNoGoToolchain
}

// buildEnv is the environment of the agent build: the user's (GOPATH, GOCACHE, GOPROXY, GOTOOLCHAIN, …) without
// the settings that would build something else than a static agent for t, or read the module differently than
// its go.mod and go.sum say (a GOFLAGS=-mod=vendor, a go.work around the cache directory).
func buildEnv(environ []string, t Target) []string {
	drop := map[string]bool{"GOOS": true, "GOARCH": true, "GOARM": true, "GOARM64": true, "GOAMD64": true,
		"GO386": true, "GOMIPS": true, "GOMIPS64": true, "GORISCV64": true, "GOPPC64": true, "CGO_ENABLED": true, "GOFLAGS": true, "GOWORK": true}
	env := make([]string, 0, len(environ)+7)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	env = append(env, "CGO_ENABLED=0", "GOOS="+t.GOOS, "GOARCH="+t.GOARCH, "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off")
	// The baseline instruction set of each architecture, set explicitly so that a `go env -w GOAMD64=v3` of the
	// user's cannot make an agent that dies on an older board.
	switch t.GOARCH {
	case "arm":
		env = append(env, "GOARM="+t.GOARM)
	case "arm64":
		env = append(env, "GOARM64=v8.0")
	case "amd64":
		env = append(env, "GOAMD64=v1")
	case "386":
		env = append(env, "GO386=sse2")
	case "mips", "mipsle":
		env = append(env, "GOMIPS="+cmp.Or(t.GOMIPS, "hardfloat"))
	case "mips64", "mips64le":
		env = append(env, "GOMIPS64=hardfloat")
	case "riscv64":
		env = append(env, "GORISCV64=rva20u64")
	case "ppc64le":
		env = append(env, "GOPPC64=power8")
	}
	return env
}
