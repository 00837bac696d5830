package fleet

import (
	"fmt"
	"strconv"
	"strings"
)

// What a board's own shell says about it, beyond `uname -m`, to choose an agent: the byte order of its
// executables (Linux prints "mips" for both byte orders) and whether its MIPS core has an FPU.
type boardPlatform struct {
	uname  string // `uname -m` as printed
	kernel string // `uname -r`
	elf    string // EI_DATA of /bin/sh: "01" little-endian, "02" big-endian, "" not read
	fpu    string // MIPS: "yes" when /proc/cpuinfo's cpu model names an FPU, "no" when not, "" not read
}

// minKernel is the oldest Linux a Go program runs on, per architecture (go.dev/wiki/MinimumRequirements and
// go.dev/wiki/Linux, for Go 1.24 and later): 3.2 everywhere, 4.8 for mips64le ("4.1 is known to fail"), 5.19 for
// loong64. Below it a Go binary dies with "Illegal instruction" or worse, so fleet measures through the shell.
func minKernel(arch string) [2]int {
	switch arch {
	case "mips64le":
		return [2]int{4, 8}
	case "loong64":
		return [2]int{5, 19}
	}
	return [2]int{3, 2}
}

// ShellReason says why the Go agent cannot run on a board with this `uname -m` and `uname -r`, and so the shell
// path measures it: "" when the agent can. An architecture fleet knows no name for, or a kernel too old to
// parse, is a reason too: the shell path needs only sh and openssl.
func ShellReason(uname, kernel string) string {
	return platformShellReason(boardPlatform{uname: uname, kernel: kernel})
}

// archFor is the inventory architecture of a board: its `uname -m`, refined by the byte order of /bin/sh and the
// FPU (a "mips" board whose executables are little-endian is mipsle, one without an FPU softfloat).
func (p boardPlatform) archFor() (string, error) {
	a, err := CanonicalArch(p.uname)
	if err != nil {
		return "", err
	}
	if a == "mips" || a == "mips64" {
		if p.elf == "01" {
			a += "le"
		}
	}
	if (a == "mips" || a == "mipsle") && p.fpu == "no" {
		a += "-softfloat"
	}
	return a, nil
}

func platformShellReason(p boardPlatform) string {
	arch, err := p.archFor()
	if err != nil {
		return noPortReason(strings.TrimSpace(p.uname))
	}
	return kernelShellReason(arch, p.kernel)
}

// kernelShellReason says why a kernel is too old for the agent of arch; "" when it is not, or not known.
func kernelShellReason(arch, kernel string) string {
	if kernel == "" {
		return ""
	}
	have, ok := kernelVersion(kernel)
	want := minKernel(strings.TrimSuffix(arch, "-softfloat"))
	if !ok {
		return fmt.Sprintf("kernel %q: not a version fleet can compare with Go's minimum (Linux %d.%d)", kernel, want[0], want[1])
	}
	if have[0] < want[0] || have[0] == want[0] && have[1] < want[1] {
		return fmt.Sprintf("kernel %s is older than Go's minimum for %s (Linux %d.%d)", kernel, arch, want[0], want[1])
	}
	return ""
}

// ShellPathError is a board the Go agent cannot run on: Run measures it through its shell instead, unless
// boards.toml says agent = "go".
type ShellPathError struct {
	Board  string
	Reason string
}

func (e *ShellPathError) Error() string {
	return fmt.Sprintf("%s: the Go agent cannot run there: %s (leave agent unset, or set agent = \"shell\", to measure it through its shell)", e.Board, e.Reason)
}

// noPortReason names, for a `uname -m` fleet builds no agent for, the reason people will recognise.
func noPortReason(m string) string {
	l := strings.ToLower(m)
	switch {
	case l == "":
		return "uname -m printed nothing"
	case strings.HasPrefix(l, "arm") && strings.HasSuffix(l, "b"), l == "armeb", l == "aarch64_be":
		return fmt.Sprintf("uname -m %q: big-endian ARM, which Go has no port for", m)
	case l == "ppc" || l == "powerpc" || strings.HasPrefix(l, "ppc") && !strings.HasPrefix(l, "ppc64"):
		return fmt.Sprintf("uname -m %q: 32-bit PowerPC, which Go has no port for", m)
	case l == "ppc64" || l == "powerpc64":
		return fmt.Sprintf("uname -m %q: big-endian ppc64, which fleet builds no agent for (Go's needs POWER8)", m)
	}
	return fmt.Sprintf("uname -m %q: no Go port fleet builds an agent for", m)
}

// kernelVersion reads major and minor from a `uname -r` such as "3.0.35-2666-gbdde708" or "6.1.0-57-arm64".
func kernelVersion(r string) ([2]int, bool) {
	r = strings.TrimSpace(r)
	parts := strings.SplitN(r, ".", 3)
	if len(parts) < 2 {
		return [2]int{}, false
	}
	major, err := strconv.Atoi(parts[0])
	if err != nil || major < 1 || major > 99 {
		return [2]int{}, false
	}
	minorDigits := parts[1]
	for i, c := range minorDigits {
		if c < '0' || c > '9' {
			minorDigits = minorDigits[:i]
			break
		}
	}
	minor, err := strconv.Atoi(minorDigits)
	if err != nil || minor > 999 {
		return [2]int{}, false
	}
	return [2]int{major, minor}, true
}
