package inventory

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// builder turns a decoded document into boards and profiles, recording every problem it finds.
type builder struct {
	ps      *problems
	home    func() (string, error)
	homeDir string
	homeErr error
	homeSet bool
}

// checkBoardDoc validates the fields present in d (a board, or [defaults] seen as one) and normalises them:
// arch aliases mapped, "~" expanded. base is the key path of the table, ctx how messages name it.
func (b *builder) checkBoardDoc(base []string, ctx string, d *boardDoc) {
	at := func(key string) int { return b.ps.pos.valueAt(appendPath(base, key)...) }
	if d.Host != nil {
		if msg := checkHost(*d.Host); msg != "" {
			b.ps.add(at("host"), ctx, "%s", msg)
		}
	}
	if d.Port != nil && (*d.Port < 1 || *d.Port > 65535) {
		b.ps.add(at("port"), ctx, "port %d is out of range (expected 1-65535)", *d.Port)
	}
	if d.User != nil {
		if msg := checkUser(*d.User); msg != "" {
			b.ps.add(at("user"), ctx, "%s", msg)
		}
	}
	b.checkPath(base, ctx, "identity_file", d.IdentityFile, "~/.ssh/id_ed25519")
	b.checkPath(base, ctx, "known_hosts", d.KnownHosts, "~/.ssh/known_hosts")
	if d.ProxyJump != nil {
		if msg := checkProxyJump(*d.ProxyJump); msg != "" {
			b.ps.add(at("proxy_jump"), ctx, "%s", msg)
		}
	}
	if d.Arch != nil && *d.Arch != "" {
		if arch, ok := NormalizeArch(*d.Arch); ok {
			*d.Arch = arch
		} else {
			b.ps.add(at("arch"), ctx, "unknown arch %q (expected %s; leave it out to detect it with uname -m)", *d.Arch, strings.Join(Arches, ", "))
		}
	}
	if d.SoC != nil {
		if msg := checkLine("soc", *d.SoC, `"AM64x"`); msg != "" {
			b.ps.add(at("soc"), ctx, "%s", msg)
		}
	}
	if d.Tags != nil {
		b.checkList(base, ctx, "tags", *d.Tags, func(t string) string {
			if msg := checkName(t); msg != "" {
				return fmt.Sprintf("invalid tag %q (%s)", t, msg)
			}
			return ""
		})
	}
	if d.Modes != nil {
		b.checkList(base, ctx, "modes", *d.Modes, checkMode)
	}
	b.checkEnv(base, ctx, d.Env)
	if d.Agent != nil {
		if msg := checkAgent(*d.Agent); msg != "" {
			b.ps.add(at("agent"), ctx, "%s", msg)
		}
	}
	if d.OpenSSL != nil {
		if msg := checkLine("openssl", *d.OpenSSL, `"/usr/bin/openssl"`); msg != "" {
			b.ps.add(at("openssl"), ctx, "%s", msg)
		}
	}
	if d.CPUs != nil {
		if err := protocol.CheckCPUs(*d.CPUs); err != nil {
			b.ps.add(at("cpus"), ctx, "%v", err)
		}
	}
}

// checkPath validates a file path on the controller and expands a leading "~" or "~/".
func (b *builder) checkPath(base []string, ctx, key string, p *string, example string) {
	if p == nil {
		return
	}
	off := b.ps.pos.valueAt(appendPath(base, key)...)
	if msg := checkLine(key, *p, example); msg != "" {
		b.ps.add(off, ctx, "%s", msg)
		return
	}
	if *p != "~" && !strings.HasPrefix(*p, "~/") {
		if strings.HasPrefix(*p, "~") {
			b.ps.add(off, ctx, "%s %q: only ~ and ~/ are expanded (expected a path such as %s)", key, *p, example)
		}
		return
	}
	home, err := b.homeDirectory()
	if err != nil {
		b.ps.add(off, ctx, "%s %q: expand ~: %v", key, *p, err)
		return
	}
	*p = filepath.Join(home, (*p)[1:])
}

func (b *builder) homeDirectory() (string, error) {
	if !b.homeSet {
		b.homeSet = true
		b.homeDir, b.homeErr = b.home()
		if b.homeErr == nil && b.homeDir == "" {
			b.homeErr = fmt.Errorf("home directory is not set")
		}
	}
	return b.homeDir, b.homeErr
}

// checkList checks each element of an array value with check, and refuses duplicates.
func (b *builder) checkList(base []string, ctx, key string, list []string, check func(string) string) {
	seen := map[string]bool{}
	for i, v := range list {
		el := key + "[" + strconv.Itoa(i) + "]"
		off := b.ps.pos.valueAt(appendPath(base, key, "["+strconv.Itoa(i)+"]")...)
		if msg := check(v); msg != "" {
			b.ps.add(off, ctx, "%s: %s", el, msg)
			continue
		}
		if seen[v] {
			b.ps.add(off, ctx, "%s: %q is listed twice", el, v)
		}
		seen[v] = true
	}
}

// checkEnv validates environment variable names and values. Values reach the board as data (never through a
// shell), but a newline, carriage return or NUL is still refused: no environment can carry them faithfully.
func (b *builder) checkEnv(base []string, ctx string, env map[string]string) {
	for _, k := range sortedKeys(env) {
		path := appendPath(base, "env", k)
		if !envKeyRE.MatchString(k) {
			b.ps.add(b.ps.pos.key(path...), ctx, "env: invalid variable name %q (expected letters, digits and '_', not starting with a digit)", k)
			continue
		}
		if strings.ContainsAny(env[k], "\x00\n\r") {
			b.ps.add(b.ps.pos.valueAt(path...), ctx, "env.%s: value %q contains a newline, carriage return or NUL (expected one line)", k, env[k])
			continue
		}
		if k == "OPENSSL_ia32cap" {
			b.checkIA32Cap(path, ctx, env[k])
		}
	}
}

// checkIA32Cap refuses an OPENSSL_ia32cap that OpenSSL would read as another mask (it stops at the first
// character it does not expect), and one that turns off all that mode soft does: every mode of the board would
// then measure software, and its cpu points would be soft's numbers under cpu's name. A partial mask (SHA-NI
// off, say) is the environment of mode cpu, recorded with each run.
func (b *builder) checkIA32Cap(path []string, ctx, v string) {
	m, err := opensslspeed.ParseIA32Cap(v)
	switch {
	case err != nil:
		b.ps.add(b.ps.pos.valueAt(path...), ctx, "env.OPENSSL_ia32cap: %v", err)
	case m.Soft():
		b.ps.add(b.ps.pos.valueAt(path...), ctx, "env.OPENSSL_ia32cap: %q turns off all that mode soft does (AES-NI, "+
			"PCLMULQDQ, SHA, VAES, VPCLMULQDQ): the board's cpu points would be software; leave it out and measure mode soft", v)
	}
}

// board checks one [boards.NAME] table and merges the defaults into it.
func (b *builder) board(name string, d boardDoc, defaults *boardDoc) (Board, bool) {
	base := []string{"boards", name}
	ctx := context(base)
	headerOff := b.ps.pos.key(base...)
	before := len(b.ps.errs)
	if msg := checkName(name); msg != "" {
		b.ps.add(headerOff, ctx, "invalid board name (%s)", msg)
	}
	b.checkBoardDoc(base, ctx, &d)
	limits := b.validityLimits(base, ctx, d.Validity)
	prep := b.preparation(base, ctx, d.Validity)
	patterns := b.kernelPatterns(base, ctx, d.KernelLog)
	reconnect := b.reconnectWait(base, ctx, d.ReconnectWait)
	hwmon, command := b.power(base, ctx, d.Power, d.PowerCommand)
	local := name == LocalBoard
	if local {
		for _, key := range setKeys(&d, localRefused) {
			b.ps.add(b.ps.pos.key(appendPath(base, key)...), ctx, "%s is not allowed on the built-in local board (it is this machine, reached without SSH)", key)
		}
	} else if d.Host == nil {
		b.ps.add(headerOff, ctx, `missing host (expected host = "NAME-OR-ADDRESS", or an alias from ~/.ssh/config)`)
	}
	if len(b.ps.errs) > before {
		return Board{}, false
	}
	line, _ := b.ps.pos.lineCol(headerOff)
	bd := Board{
		Name:   name,
		Local:  local,
		Source: b.ps.file + ":" + strconv.Itoa(line),
		Arch:   deref(d.Arch),
		SoC:    deref(d.SoC),
	}
	if !local {
		// The SSH settings of [defaults] mean nothing for the local board.
		bd.Host = deref(d.Host)
		bd.Port = int(derefInt(first(d.Port, defaults.Port)))
		bd.User = deref(first(d.User, defaults.User))
		bd.IdentityFile = deref(first(d.IdentityFile, defaults.IdentityFile))
		bd.KnownHosts = deref(first(d.KnownHosts, defaults.KnownHosts))
		bd.ProxyJump = deref(first(d.ProxyJump, defaults.ProxyJump))
	}
	bd.OpenSSL = deref(first(d.OpenSSL, defaults.OpenSSL))
	bd.Agent = deref(first(d.Agent, defaults.Agent))
	bd.Tags = cloneStrings(derefSlice(first(d.Tags, defaults.Tags)))
	bd.Modes = cloneStrings(derefSlice(first(d.Modes, defaults.Modes)))
	bd.Env = mergeEnv(defaults.Env, d.Env)
	bd.Validity = limits
	bd.Prepare = prep
	bd.KernelPatterns = patterns
	bd.ReconnectWait = reconnect
	bd.CPUs = deref(d.CPUs)
	bd.PowerHwmon, bd.PowerCommand = hwmon, command
	return bd, true
}

// setKeys lists which of keys are present in d.
func setKeys(d *boardDoc, keys []string) []string {
	present := map[string]bool{
		"host": d.Host != nil, "port": d.Port != nil, "user": d.User != nil,
		"identity_file": d.IdentityFile != nil, "known_hosts": d.KnownHosts != nil,
		"proxy_jump": d.ProxyJump != nil, "arch": d.Arch != nil,
	}
	var out []string
	for _, k := range keys {
		if present[k] {
			out = append(out, k)
		}
	}
	return out
}

func mergeEnv(defaults, board map[string]string) map[string]string {
	if len(defaults) == 0 && len(board) == 0 {
		return nil
	}
	env := make(map[string]string, len(defaults)+len(board))
	for k, v := range defaults {
		env[k] = v
	}
	for k, v := range board {
		env[k] = v
	}
	return env
}

func first[T any](p ...*T) *T {
	for _, v := range p {
		if v != nil {
			return v
		}
	}
	return nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func derefInt(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func derefSlice(p *[]string) []string {
	if p == nil {
		return nil
	}
	return *p
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
