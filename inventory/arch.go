package inventory

import (
	"fmt"
	"strings"
)

// Arches are the architecture names of boards.toml: the targets fleet cross-compiles its agent for. The mips
// names without "-softfloat" need a hardware FPU (GOMIPS=hardfloat); "-softfloat" runs on any MIPS32 core.
var Arches = []string{"armv5", "armv6", "armv7", "arm64", "amd64", "386", "riscv64", "mips", "mipsle",
	"mips-softfloat", "mipsle-softfloat", "mips64", "mips64le", "ppc64le", "loong64"}

// NormalizeArch maps an architecture name, or what `uname -m` or Debian call it, to the one fleet uses to
// cross-compile the agent (one of Arches). It is the one table of architecture names: fleet.CanonicalArch uses it
// for what `uname -m` prints on a board. Linux prints "mips" and "mips64" for both byte orders: those map to the
// big-endian names, and the controller tells a little-endian board apart by its ELF header (fleet.DetectArch).
func NormalizeArch(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "armv5", "armv5l", "armv5tel", "armv5tejl", "armel":
		return "armv5", true
	case "armv6", "armv6l":
		return "armv6", true
	// armv8l: a 64-bit ARM kernel reporting a 32-bit personality (or a 32-bit kernel on an ARMv8 core); the
	// ARMv7 agent runs there.
	case "armv7", "armv7l", "armv7hl", "armhf", "armv8l":
		return "armv7", true
	case "arm64", "aarch64":
		return "arm64", true
	case "amd64", "x86_64", "x86-64", "x64":
		return "amd64", true
	case "386", "i386", "i486", "i586", "i686", "x86":
		return "386", true
	case "riscv64":
		return "riscv64", true
	case "mips":
		return "mips", true
	case "mipsle", "mipsel":
		return "mipsle", true
	case "mips-softfloat", "mipssf":
		return "mips-softfloat", true
	case "mipsle-softfloat", "mipsel-softfloat", "mipselsf":
		return "mipsle-softfloat", true
	case "mips64":
		return "mips64", true
	case "mips64le", "mips64el":
		return "mips64le", true
	case "ppc64le", "ppc64el", "powerpc64le":
		return "ppc64le", true
	case "loong64", "loongarch64":
		return "loong64", true
	}
	return "", false
}

// The values of the agent key: how fleet measures a board.
const (
	AgentGo    = "go"    // push and run the Go agent (fails where it cannot run)
	AgentShell = "shell" // POSIX sh and the board's own openssl over one SSH session, nothing pushed
)

func checkAgent(v string) string {
	if v == AgentGo || v == AgentShell {
		return ""
	}
	return fmt.Sprintf("unknown agent %q (expected %q or %q; leave it out to choose by the board's uname)", v, AgentGo, AgentShell)
}
