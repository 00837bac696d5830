package agent

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// probeEnvironment records what the openssl processes run with and what the kernel offers crypto: the OPENSSL_*
// environment, the configuration file's engine and provider sections (as a digest), the openssl binary's sha256,
// the kernel command line and the crypto modules loaded. These are the facts a lab changes between two nights
// (an OPENSSL_ia32cap mask, a new openssl.cnf, a module blacklisted) that change the numbers.
func probeEnvironment(f *protocol.Facts, opts ProbeOptions, addErr func(string, ...any)) {
	path := func(p string) string { return opts.Root + p }
	f.OpenSSLEnv = opensslEnv(os.Environ(), opts.Env)

	if b, err := os.ReadFile(path("/proc/cmdline")); err == nil {
		f.KernelCmdline = strings.TrimSpace(string(b))
	} else {
		addErr("read /proc/cmdline: %v", err)
	}
	// A kernel built without module support has no /proc/modules: normal on boards, so not an error.
	if b, err := os.ReadFile(path("/proc/modules")); err == nil {
		mods, err := parseProcModules(string(b))
		if err != nil {
			addErr("%v", err)
		}
		f.Modules = mods
	} else if !errors.Is(err, fs.ErrNotExist) {
		addErr("read /proc/modules: %v", err)
	}

	if f.OpenSSLPath != "" {
		if sum, err := opts.memo.fileSHA256(f.OpenSSLPath); err == nil {
			f.OpenSSLSHA256 = sum
		} else {
			addErr("sha256 of openssl: %v", err)
		}
	}
	conf := f.OpenSSLEnv["OPENSSL_CONF"]
	if conf == "" {
		if dir := opensslDir(f.OpenSSLBuild); dir != "" {
			conf = dir + "/openssl.cnf"
		}
	}
	if conf == "" {
		return
	}
	f.OpenSSLConf = conf
	b, err := os.ReadFile(conf)
	if err != nil {
		addErr("read openssl config: %v", err)
		return
	}
	c := parseOpenSSLConf(string(b))
	f.OpenSSLConfDigest = confDigest(c)
	f.OpenSSLConfRoutes = confRoutes(c)
}

// opensslEnv is the environment every openssl process of the probe and the sweep inherits, as far as it
// concerns OpenSSL: the OPENSSL_* variables of environ, and every variable of extra (KEY=VALUE, a plan's env,
// which wins), whatever its name, because the lab set it for openssl on purpose. Never nil: empty is "none set".
func opensslEnv(environ, extra []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "OPENSSL_") {
			out[k] = v
		}
	}
	for _, kv := range extra {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			out[k] = v
		}
	}
	return out
}

// opensslDir is OPENSSLDIR from `openssl version -a` (`OPENSSLDIR: "/usr/lib/ssl"`), "" when absent.
func opensslDir(build string) string {
	for _, l := range strings.Split(build, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), "OPENSSLDIR:"); ok {
			rest = strings.TrimSpace(rest)
			if uq, err := strconv.Unquote(rest); err == nil {
				return uq
			}
			return strings.Trim(rest, `"`)
		}
	}
	return ""
}

// fileSHA256 is the hex sha256 of a file, with the agent's own SHA-256 (main_sha256.go).
func fileSHA256(name string) (string, error) { // mainSHA256 prints the same
	fh, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := newSHA256()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// confDigest is the sha256 (first 16 hex digits) of the configuration sections that load engines or providers:
// the section openssl_conf names in the default section, its engines and providers sections, and the section of
// each engine and provider they list, each written as "[name]\nkey=value\n" in sorted order so that comments,
// spacing and unrelated sections change nothing. "none" when the configuration names no such sections.
// An .include directive is not followed: the included file's sections are not digested.
func confDigest(c opensslConf) string {
	init := c.value("", "openssl_conf")
	if init == "" {
		return "none"
	}
	names := map[string]bool{}
	for _, key := range []string{"engines", "providers"} {
		list := c.value(init, key)
		if list == "" || c[list] == nil {
			continue
		}
		names[list] = true
		for _, kv := range c[list] {
			if c[kv.Value] != nil {
				names[kv.Value] = true
			}
		}
	}
	if len(names) == 0 {
		return "none"
	}
	names[init] = true
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	slices.Sort(sorted)
	h := newSHA256()
	for _, n := range sorted {
		io.WriteString(h, "["+n+"]\n")
		for _, kv := range c[n] {
			io.WriteString(h, kv.Key+"="+kv.Value+"\n")
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}
