package opensslspeed

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// speedCmd is what an `openssl speed` command line says about the run it started.
type speedCmd struct {
	args     []string          // the arguments after "speed"
	env      map[string]string // NAME=value assignments before openssl
	elapsed  bool
	mr       bool
	decrypt  bool
	seconds  float64
	multi    int
	bytes    int
	engine   string
	provider string
	evp      string
	hmac     string
	cmac     string
	algs     []string // positional algorithm arguments
	bad      string   // a value out of bounds (see Max*), refused
}

// speedValueOpts are the options of `openssl speed` that take a value. A list, not a map: a map literal is
// code run at init in every binary that imports the package, the agent's included.
var speedValueOpts = []string{
	"evp", "engine", "multi", "seconds", "bytes", "misalign", "async_jobs", "provider", "provider-path",
	"propquery", "hmac", "cmac", "primes", "rand", "writerand", "config",
}

var speedEnvRE = protocol.MustPattern(`^[A-Za-z_][A-Za-z0-9_]*=`)

// parseSpeedCmd reads an argv (with or without "openssl speed" and env assignments in front) plus extra
// environment entries.
func parseSpeedCmd(argv []string, env []string) *speedCmd {
	c := &speedCmd{env: map[string]string{}}
	for _, e := range env {
		if k, v, ok := strings.Cut(e, "="); ok {
			c.env[k] = v
		}
	}
	start := -1
	for i, t := range argv {
		if t == "speed" && (i == 0 || path.Base(argv[i-1]) == "openssl") {
			start = i + 1
			break
		}
	}
	if start < 0 {
		start = 0
	}
	for _, t := range argv[:start] {
		if speedEnvRE.MatchString(t) {
			k, v, _ := strings.Cut(t, "=")
			c.env[k] = shellUnquote(v)
		}
	}
	if v, ok := c.env["OPENSSL_ia32cap"]; ok {
		if _, err := ParseIA32Cap(v); err != nil {
			c.bad = err.Error() + ": refused"
		}
	}
	c.args = argv[start:]
	for i := 0; i < len(c.args); i++ {
		t := c.args[i]
		if !strings.HasPrefix(t, "-") || len(t) < 2 {
			c.algs = append(c.algs, t)
			continue
		}
		name := strings.TrimLeft(t, "-")
		val := ""
		if k, v, ok := strings.Cut(name, "="); ok {
			name, val = k, v
		} else if slices.Contains(speedValueOpts, name) && i+1 < len(c.args) {
			i++
			val = c.args[i]
		}
		switch name {
		case "elapsed":
			c.elapsed = true
		case "mr":
			c.mr = true
		case "decrypt":
			c.decrypt = true
		case "seconds":
			if f, err := strconv.ParseFloat(val, 64); err == nil && f > 0 && f < 1e6 {
				c.seconds = f
			}
		case "multi":
			if n, err := strconv.Atoi(val); err == nil && n > 0 && n <= MaxThreads {
				c.multi = n
			} else if err == nil || len(val) > 0 && val[0] >= '0' && val[0] <= '9' {
				c.bad = "-multi " + val + " is out of range: refused (accepted 1 to " + strconv.Itoa(MaxThreads) + ")"
			}
		case "bytes":
			if n, err := strconv.Atoi(val); err == nil && n > 0 && n <= MaxBlockSize {
				c.bytes = n
			} else if err == nil || len(val) > 0 && val[0] >= '0' && val[0] <= '9' {
				c.bad = "-bytes " + val + " is out of range: refused (accepted 1 to " + strconv.Itoa(MaxBlockSize) + ")"
			}
		case "engine":
			c.engine = val
		case "provider":
			c.provider = val
		case "evp":
			c.evp = val
		case "hmac":
			c.hmac = val
		case "cmac":
			c.cmac = val
		}
	}
	return c
}

// speedEngineMode names the mode of an engine as design.md does: the mode of protocol.Modes that lists it
// (devcrypto for cryptodev too, afalg for af_alg), else engine:NAME.
func speedEngineMode(engine string) string {
	e := strings.ToLower(engine)
	if mode, ok := protocol.EngineMode(e); ok {
		return mode
	}
	return protocol.EnginePrefix + e
}

// mode derives the measurement mode from the command line; cpuCap is the capability variable the CPUINFO
// line names (OPENSSL_armcap or OPENSSL_ia32cap), "" when the output has none. It returns "" when the command
// line does not decide the mode, plus notes for the points.
func (c *speedCmd) mode(cpuCap string) (string, string, []string) {
	if c == nil {
		return "", "", nil
	}
	if c.engine != "" {
		return speedEngineMode(c.engine), "command line", nil
	}
	if p := strings.ToLower(c.provider); p != "" && p != "default" {
		return protocol.ProviderPrefix + p, "command line", nil
	}
	var notes []string
	for _, name := range []string{"OPENSSL_armcap", "OPENSSL_ia32cap"} {
		v, ok := c.env[name]
		if !ok {
			continue
		}
		if cpuCap != "" && cpuCap != name {
			notes = append(notes, name+"="+v+" ignored: this CPU's openssl reads "+cpuCap)
			continue
		}
		if name == "OPENSSL_armcap" {
			if n, err := strconv.ParseUint(strings.TrimSpace(v), 0, 64); err != nil || n != 0 {
				notes = append(notes, "OPENSSL_armcap="+v+" is a partial mask, not soft")
				continue
			}
		}
		if name == "OPENSSL_ia32cap" {
			m, err := ParseIA32Cap(v)
			if err != nil { // refused where it was read (the command line, CPUINFO's env:)
				continue
			}
			if on := m.LeftOn(); len(on) > 0 {
				notes = append(notes, "OPENSSL_ia32cap="+v+" is a partial mask, not soft: it leaves "+strings.Join(on, ", ")+" on")
				continue
			}
		}
		return protocol.ModeSoft, "environment", notes
	}
	return "", "", notes
}

// shellUnquote removes the quotes a shell would from a pasted assignment's value (OPENSSL_ia32cap=':~0x2000'):
// one pair of matching single or double quotes around the whole of it.
func shellUnquote(v string) string {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// openSSLEnv is the OPENSSL_* part of the command's environment.
func (c *speedCmd) openSSLEnv() map[string]string {
	out := map[string]string{}
	if c == nil {
		return out
	}
	for k, v := range c.env {
		if strings.HasPrefix(k, "OPENSSL_") {
			out[k] = v
		}
	}
	return out
}

// speedCommandRE finds a shell command running `openssl speed` in a pasted log: an optional prompt
// ("$ ", "root@board:~# ", "[root@host ~]# "), optional wrappers (time -v, env, sudo, taskset, VAR=value), then
// openssl speed and its arguments.
var speedCommandRE = protocol.MustPattern(`^(?:\[[^\]]*\][#$]\s*|\S*[#$%>]\s+)?((?:(?:sudo|time|env|nice|taskset|chrt|numactl|\S+=\S*|-\S+|\d+)\s+)*)((?:\S*/)?openssl)\s+speed(?:\s+(.*))?$`)

// speedCommandLine returns the argv of an `openssl speed` command on a log line, or nil.
func speedCommandLine(line string) []string {
	if !strings.Contains(line, "openssl") || !strings.Contains(line, "speed") {
		return nil
	}
	m := speedCommandRE.FindStringSubmatch(line)
	if m == nil {
		return nil
	}
	argv := strings.Fields(m[1])
	argv = append(argv, "openssl", "speed")
	for _, t := range strings.Fields(m[3]) {
		if strings.HasPrefix(t, "#") || t == "|" || t == ";" || t == "&&" || strings.HasPrefix(t, ">") ||
			strings.HasPrefix(t, "2>") || strings.HasPrefix(t, "&>") || strings.HasPrefix(t, "1>") {
			break
		}
		argv = append(argv, t)
	}
	return argv
}
