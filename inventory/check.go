package inventory

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// The checks below return "" when a value is acceptable, else what is wrong and what is expected. Values from
// boards.toml end up in command lines and environments on remote boards: even though the controller passes
// them as data and never through a shell, anything that could be read as shell syntax is refused here so that
// a mistake or a hostile file fails early, with a position, instead of doing something surprising later.

var (
	nameRE       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	hostRE       = regexp.MustCompile(`^[A-Za-z0-9._:%-]+$`)
	userRE       = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._@-]*$`)
	jumpRE       = regexp.MustCompile(`^(?:ssh://)?(?:[A-Za-z0-9_][A-Za-z0-9._-]*@)?(?:[A-Za-z0-9._%-]+|\[[0-9A-Fa-f:.%A-Za-z-]+\])(?::[0-9]{1,5})?$`)
	envKeyRE     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	algorithmRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	moduleNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)
)

const (
	maxNameLen = 64
	maxHostLen = 255
	maxSize    = 16 << 20 // largest block size, 16 MiB
	maxSeconds = 600
	maxThreads = 1024
	maxRepeats = 1000
)

const nameRule = "a letter or digit, then letters, digits, '.', '_' or '-', at most 64 characters"

// checkName applies to board names, profile names and tags: they are typed on command lines.
func checkName(s string) string {
	if len(s) > maxNameLen || !nameRE.MatchString(s) {
		return "expected " + nameRule
	}
	return ""
}

// CheckBoardName refuses what cannot be a board name (checkName's rule), for names typed on the command line.
func CheckBoardName(s string) error {
	if msg := checkName(s); msg != "" {
		return fmt.Errorf("board name %q: %s", s, msg)
	}
	return nil
}

func checkHost(s string) string {
	const want = "expected a host name, an IP address or an alias from ~/.ssh/config: letters, digits, '.', '-', '_', ':' or '%', not starting with '-'"
	switch {
	case s == "":
		return "host is empty (" + want + ")"
	case len(s) > maxHostLen || !hostRE.MatchString(s) || s[0] == '-':
		return fmt.Sprintf("host %q is invalid (%s)", s, want)
	}
	return ""
}

func checkUser(s string) string {
	if s != "" && (len(s) > maxNameLen || !userRE.MatchString(s)) {
		return fmt.Sprintf("user %q is invalid (expected letters, digits, '.', '_', '-' or '@', not starting with '-' or '.')", s)
	}
	return ""
}

// checkProxyJump accepts what OpenSSH's ProxyJump does: "none" or [ssh://][user@]host[:port], comma-separated.
func checkProxyJump(s string) string {
	if s == "" || s == "none" {
		return ""
	}
	for _, el := range strings.Split(s, ",") {
		if len(el) > maxHostLen || !jumpRE.MatchString(el) || strings.HasPrefix(el, "-") {
			return fmt.Sprintf("proxy_jump %q: hop %q is invalid (expected [user@]host[:port], hops separated by commas, such as \"gw1,admin@gw2:2222\")", s, el)
		}
	}
	return ""
}

// checkLine refuses control characters: a newline or NUL in a path would split or truncate it on the board.
func checkLine(key, s, example string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("%s %q contains a control character (expected one line of text, such as %s)", key, s, example)
		}
	}
	return ""
}

// CheckAlgorithm reports whether a is spelled like an algorithm name (lower-case letters, digits and '-', such
// as aes-128-cbc), by the rule boards.toml follows. The command line uses it for --algorithms and --history.
func CheckAlgorithm(a string) error {
	if msg := checkAlgorithm(a); msg != "" {
		return fmt.Errorf("%s", msg)
	}
	return nil
}

// CheckMode reports whether m names a sweep mode: soft, cpu, devcrypto, afalg, kcapi, kcapi:DRIVER, kcapi:all,
// ssh, engine:NAME or provider:NAME. The command line uses it for --modes.
func CheckMode(m string) error {
	if msg := checkMode(m); msg != "" {
		return fmt.Errorf("mode %q: %s", m, msg)
	}
	return nil
}

func checkMode(m string) string {
	if _, ok := protocol.LookupMode(m); ok || m == protocol.KCAPIAll {
		return ""
	}
	if d, ok := strings.CutPrefix(m, protocol.KCAPIPrefix); ok {
		return protocol.CheckKCAPIDriverName(d)
	}
	for _, kind := range []string{"engine", "provider"} {
		if name, ok := strings.CutPrefix(m, kind+":"); ok {
			if len(name) > maxNameLen || !moduleNameRE.MatchString(name) {
				return fmt.Sprintf("invalid %s name %q (expected letters, digits, '_', '.' or '-')", kind, name)
			}
			return ""
		}
	}
	names := make([]string, len(protocol.Modes))
	for i, s := range protocol.Modes {
		names[i] = s.Mode
	}
	return fmt.Sprintf("unknown mode %q (expected %s, kcapi:DRIVER, kcapi:all, engine:NAME or provider:NAME)", m, strings.Join(names, ", "))
}
