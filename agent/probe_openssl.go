package agent

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fleetlab/fleet/protocol"
)

// opensslVersion is the parsed "openssl version" of the binary a sweep runs.
type opensslVersion struct {
	Major, Minor, Patch int
	Letter              string // "e" of 1.0.1e
	LibreSSL            bool
}

var opensslVersionRE = protocol.MustPattern(`(OpenSSL|LibreSSL)\s+(\d+)\.(\d+)\.(\d+)([a-z]*)`)

// parseOpenSSLVersion reads the first line of `openssl version`, e.g. "OpenSSL 3.0.19 27 Jan 2026" or
// "OpenSSL 1.0.1e-fips 11 Feb 2013". It returns the version as printed ("3.0.19", "1.0.1e") too.
func parseOpenSSLVersion(line string) (opensslVersion, string, bool) {
	m := opensslVersionRE.FindStringSubmatch(line)
	if m == nil {
		return opensslVersion{}, "", false
	}
	var v opensslVersion
	v.LibreSSL = m[1] == "LibreSSL"
	v.Major, _ = strconv.Atoi(m[2])
	v.Minor, _ = strconv.Atoi(m[3])
	v.Patch, _ = strconv.Atoi(m[4])
	v.Letter = m[5]
	return v, m[2] + "." + m[3] + "." + m[4] + m[5], true
}

// atLeast reports whether v is OpenSSL major.minor.patch or later (LibreSSL never is: its speed options differ).
func (v opensslVersion) atLeast(major, minor, patch int) bool {
	if v.LibreSSL {
		return false
	}
	if v.Major != major {
		return v.Major > major
	}
	if v.Minor != minor {
		return v.Minor > minor
	}
	return v.Patch >= patch
}

// modeEngine is the engine that measures mode (its entry's Engines in protocol.Modes) in this OpenSSL version:
// the first name from 1.1 on, the second, a third-party patch's, in 1.0.x. "" for a mode that is no engine.
func (v opensslVersion) modeEngine(mode string) string {
	s, _ := protocol.LookupMode(mode)
	switch {
	case len(s.Engines) == 0:
		return ""
	case v.atLeast(1, 1, 0) || len(s.Engines) == 1:
		return s.Engines[0]
	}
	return s.Engines[1]
}

// opensslErrPrefix matches the "40A7B1B3727F0000:" thread id OpenSSL 3 prints before each error.
var opensslErrPrefix = protocol.MustPattern(`^[0-9A-F]{6,}:`)

// firstErrorLine is the first non-empty line of an openssl error output, without the thread id, noting an engine
// "init failed" met further down (the first line of afalg's error is an opaque reason code).
func firstErrorLine(out string) string {
	var first string
	initFailed := false
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if first == "" {
			first = opensslErrPrefix.ReplaceAllLiteralString(l, "")
		}
		if strings.Contains(l, "init failed") {
			initFailed = true
		}
	}
	if first == "" {
		return "no output"
	}
	if initFailed && !strings.Contains(first, "init failed") {
		first = "init failed: " + first
	}
	return first
}

// probeEngine runs `openssl engine -t NAME` and returns "available" or "not available: <reason>".
func probeEngine(ctx context.Context, openssl, name string, opts ProbeOptions) string {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	return engineStatus(opts.memo.run(ctx, []string{openssl, "engine", "-t", name}, opts.Env))
}

// engineStatus reads what `openssl engine -t NAME` did: "available" or "not available: <reason>".
func engineStatus(res childResult) string {
	switch {
	case res.Err != nil:
		return "not available: " + res.Err.Error()
	case res.Exit != 0:
		return "not available: " + firstErrorLine(res.Stderr+"\n"+res.Stdout)
	case strings.Contains(res.Stdout, "[ available ]"):
		return "available"
	case strings.Contains(res.Stdout, "[ unavailable ]"):
		return "not available: engine loads but reports [ unavailable ]"
	default:
		return "not available: " + firstErrorLine(res.Stdout+"\n"+res.Stderr)
	}
}

// probeProvider checks that OpenSSL 3 loads provider NAME. `openssl list` exits 0 even when it cannot load it,
// so the output decides.
func probeProvider(ctx context.Context, openssl, name string, opts ProbeOptions) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	res := opts.memo.run(ctx, []string{openssl, "list", "-providers", "-provider", name}, opts.Env)
	out := res.Stdout + "\n" + res.Stderr
	switch {
	case res.Err != nil:
		return false, res.Err.Error()
	case res.Exit != 0 || strings.Contains(out, "unable to load provider"):
		return false, firstErrorLine(res.Stderr + "\n" + res.Stdout)
	case !strings.Contains(res.Stdout, "status: active"):
		return false, "provider not listed as active"
	}
	return true, ""
}

// probeOpenSSL fills the OpenSSL facts and engines; it returns the parsed version, or why openssl cannot be used
// (then the version is unknown and every openssl mode carries that reason).
func probeOpenSSL(ctx context.Context, f *protocol.Facts, path string, engines []string, opts ProbeOptions) (opensslVersion, string) {
	cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	res := opts.memo.run(cctx, []string{path, "version", "-a"}, opts.Env)
	cancel()
	v, why := opensslFacts(f, path, res)
	if why != "" {
		return v, why
	}
	// The engines are tested at once: each test is an openssl start (most of it loading and linking), and a
	// board with several cores, or waiting on its storage, does them side by side.
	var names []string
	for _, e := range engines {
		if e != "" && !slices.Contains(names, e) {
			names = append(names, e)
		}
	}
	status := make([]string, len(names))
	var wg sync.WaitGroup
	for i, e := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status[i] = probeEngine(ctx, path, e, opts)
		}()
	}
	wg.Wait()
	f.Engines = map[string]string{}
	for i, e := range names {
		f.Engines[e] = status[i]
	}
	return v, ""
}

// opensslFacts fills the OpenSSL facts from what `openssl version -a` did, and returns the parsed version, or
// why openssl cannot be used.
func opensslFacts(f *protocol.Facts, path string, res childResult) (opensslVersion, string) {
	if res.Err != nil || res.Exit != 0 {
		why := fmt.Sprintf("version -a: exit %d: %v %s", res.Exit, res.Err, firstErrorLine(res.Stderr))
		f.Errors = append(f.Errors, "openssl "+why)
		return opensslVersion{}, "openssl " + path + ": " + why
	}
	f.OpenSSLBuild = strings.TrimSpace(res.Stdout)
	first, _, _ := strings.Cut(f.OpenSSLBuild, "\n")
	f.OpenSSL = strings.TrimSpace(first)
	v, printed, ok := parseOpenSSLVersion(first)
	if !ok {
		why := fmt.Sprintf("version: cannot parse %q", first)
		f.Errors = append(f.Errors, "openssl "+why)
		return v, "openssl " + path + ": " + why
	}
	f.OpenSSLVersion = printed
	return v, ""
}
