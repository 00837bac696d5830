package fleet

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/fleetlab/fleet/inventory"
)

// Target is what the agent is compiled for: the Go toolchain's GOOS, GOARCH and, for 32-bit ARM, GOARM; for
// 32-bit MIPS, GOMIPS.
type Target struct {
	GOOS   string // always "linux" for boards
	GOARCH string // arm, arm64, amd64, 386, riscv64, mips, mipsle, mips64, mips64le, ppc64le, loong64
	GOARM  string // 5, 6 or 7 when GOARCH is arm; empty otherwise
	GOMIPS string // "softfloat" for a MIPS32 board without an FPU; empty (hardfloat) otherwise
}

// String names the target like the Go toolchain's platform list: "linux/arm64", "linux/arm/v7",
// "linux/mipsle/softfloat".
func (t Target) String() string {
	s := t.GOOS + "/" + t.GOARCH
	if t.GOARM != "" {
		s += "/v" + t.GOARM
	}
	if t.GOMIPS != "" {
		s += "/" + t.GOMIPS
	}
	return s
}

// Arch is the inventory's architecture name of the target (one of inventory.Arches).
func (t Target) Arch() string {
	if t.GOARCH == "arm" && t.GOARM != "" {
		return "armv" + t.GOARM
	}
	if t.GOMIPS == "softfloat" {
		return t.GOARCH + "-softfloat"
	}
	return t.GOARCH
}

// CanonicalArch returns the inventory name (one of inventory.Arches) of an architecture given either by that name
// or as `uname -m` prints it (surrounding white space, such as uname's newline, is ignored). The names come from
// inventory.NormalizeArch, so that boards.toml and a detected architecture agree.
func CanonicalArch(arch string) (string, error) {
	a, ok := inventory.NormalizeArch(strings.TrimSpace(arch))
	if !ok {
		return "", fmt.Errorf("unknown architecture %q: want one of %s (or a `uname -m` value such as armv7l or aarch64)", arch, strings.Join(inventory.Arches, ", "))
	}
	return a, nil
}

// TargetForArch returns the Go target for an architecture name (one of inventory.Arches, or a `uname -m` value).
func TargetForArch(arch string) (Target, error) {
	a, err := CanonicalArch(arch)
	if err != nil {
		return Target{}, err
	}
	if v, ok := strings.CutPrefix(a, "armv"); ok {
		return Target{GOOS: "linux", GOARCH: "arm", GOARM: v}, nil
	}
	if g, ok := strings.CutSuffix(a, "-softfloat"); ok {
		return Target{GOOS: "linux", GOARCH: g, GOMIPS: "softfloat"}, nil
	}
	return Target{GOOS: "linux", GOARCH: a}, nil
}

// DetectArch runs `uname -m` on the board and returns the canonical architecture name (armv7, arm64, …).
func DetectArch(ctx context.Context, t Transport) (string, error) {
	var out, errb bytes.Buffer
	if err := t.Run(ctx, Command{Args: []string{"uname", "-m"}, Stdout: &out, Stderr: &errb}); err != nil {
		return "", fmt.Errorf("detect arch (uname -m): %w%s", err, stderrSuffix(errb.String()))
	}
	a, err := CanonicalArch(out.String())
	if err != nil {
		return "", fmt.Errorf("detect arch (uname -m): %w", err)
	}
	return a, nil
}

// stderrSuffix renders captured stderr for an error message: its last line, if any.
func stderrSuffix(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return " (" + s + ")"
}
