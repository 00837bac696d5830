package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fleetlab/fleet/protocol"
)

// The probe's openssl commands (`openssl version -a`, one `openssl engine -t` per engine, `openssl list
// -provider` per provider) and the sha256 of the openssl binary are most of a warm board's probe: process starts
// that cost a Cortex-A8 a second or more and an emulated board several. Their results are kept in the agent's
// directory (ProbeOptions.CacheDir, the 0700 $HOME/.cache/fleet) and reused while nothing they depend on has
// changed. What the results depend on, and what the cache's stamp therefore holds:
//
//   - the boot (/proc/sys/kernel/random/boot_id): a reboot can bring another kernel, modules, /dev/crypto;
//   - the openssl binary the probe resolves: its path, size, inode, mtime and ctime (a package upgrade replaces
//     the file: new inode; an overwrite in place changes mtime and ctime, and no unprivileged call sets ctime
//     back);
//   - its libraries: /etc/ld.so.cache (ldconfig rewrites it after every library package is installed or
//     upgraded), and the engines and modules directories `openssl version -a` names, with each engine's .so;
//   - its configuration: OPENSSL_CONF or OPENSSLDIR/openssl.cnf, and every file an .include line in it names;
//   - what the kernel offers the engines: /dev/crypto (present, its device number), whether an AF_ALG socket
//     opens, and the names of the modules loaded (a modprobe of cryptodev or algif_skcipher after boot);
//   - what was asked: the openssl name, the engines and providers, the OPENSSL_* and LD_* environment and the
//     plan's variables, and the agent itself (its file name carries its sha256): each of these makes its own
//     cache file.
//
// The stamp is taken before the commands run and again after; the results are kept only when the two agree and
// every command ran to an exit (a timeout is not a fact). Everything else the probe reports (/proc, /sys, the
// environment) is read every time: reading it costs less than checking it.

// probeMemo is one probe's cache: the results it found, and those it records for the next probe.
type probeMemo struct {
	dir, key string
	root     string
	opts     ProbeOptions

	hit     bool                   // the cached results are valid: no command runs
	mu      sync.Mutex             // the engine checks run at once
	results map[string]childResult // by argvKey, with the env
	sha256  string                 // of the openssl binary
	failed  bool                   // a command did not run to an exit: nothing is saved
	before  string                 // the stamp before the commands ran (a miss)
}

// probeCacheFile is what the cache directory keeps per probe key.
type probeCacheFile struct {
	Key     string        `json:"key"`
	Stamp   string        `json:"stamp"`
	Results []cachedChild `json:"results"`
	SHA256  string        `json:"openssl_sha256"`
}

type cachedChild struct {
	Argv   []string `json:"argv"`
	Stdout string   `json:"stdout"`
	Stderr string   `json:"stderr"`
	Exit   int      `json:"exit"`
}

// maxProbeCache bounds the file read back: a few KiB in practice.
const maxProbeCache = 1 << 20

// openProbeMemo returns the memo of a probe with opts, loaded from opts.CacheDir when its stamp still holds;
// nil without a cache directory.
func openProbeMemo(opts ProbeOptions, openssl string) *probeMemo {
	if opts.CacheDir == "" {
		return nil
	}
	m := &probeMemo{dir: opts.CacheDir, root: opts.Root, opts: opts, key: probeKey(opts, openssl), results: map[string]childResult{}}
	if c, ok := m.load(); ok {
		if stamp, ok := m.stamp(openssl, c.versionOutput()); ok && stamp == c.Stamp {
			m.hit = true
			for _, r := range c.Results {
				m.results[argvKey(r.Argv)] = childResult{Argv: r.Argv, Env: opts.Env, Stdout: r.Stdout, Stderr: r.Stderr, Exit: r.Exit}
			}
			m.sha256 = c.SHA256
			return m
		}
	}
	m.before, _ = m.stamp(openssl, "")
	return m
}

// run is runChild, answered from the cache on a hit.
func (m *probeMemo) run(ctx context.Context, argv []string, env []string) childResult {
	if m == nil {
		return runChild(ctx, argv, env)
	}
	if m.hit {
		if r, ok := m.results[argvKey(argv)]; ok {
			return r
		}
	}
	r := runChild(ctx, argv, env)
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Err != nil {
		m.failed = true
	}
	m.results[argvKey(r.Argv)] = r
	return r
}

// fileSHA256 is the openssl binary's sha256, from the cache on a hit.
func (m *probeMemo) fileSHA256(path string) (string, error) {
	if m != nil && m.hit && m.sha256 != "" {
		return m.sha256, nil
	}
	sum, err := fileSHA256(path)
	if m != nil && err == nil {
		m.sha256 = sum
	}
	return sum, err
}

// save writes what a miss found, unless a command failed to run or the stamp changed while the probe ran.
func (m *probeMemo) save(openssl string) error {
	if m == nil || m.hit || m.failed || m.before == "" {
		return nil
	}
	var c probeCacheFile
	c.Key, c.SHA256 = m.key, m.sha256
	for _, r := range m.results {
		c.Results = append(c.Results, cachedChild{Argv: r.Argv, Stdout: r.Stdout, Stderr: r.Stderr, Exit: r.Exit})
	}
	sort.Slice(c.Results, func(i, j int) bool { return argvKey(c.Results[i].Argv) < argvKey(c.Results[j].Argv) })
	if after, _ := m.stamp(openssl, ""); after != m.before {
		return nil // something changed under the probe: its results may be of either side
	}
	stamp, ok := m.stamp(openssl, c.versionOutput())
	if !ok {
		return nil
	}
	c.Stamp = stamp
	b, err := protocol.EncodeJSON(c)
	if err != nil {
		return err
	}
	path := m.path()
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("probe cache: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("probe cache: %w", err)
	}
	return nil
}

func (m *probeMemo) path() string { return filepath.Join(m.dir, ".probe-"+m.key[:16]+".json") }

func (m *probeMemo) load() (probeCacheFile, bool) {
	var c probeCacheFile
	f, err := os.Open(m.path())
	if err != nil {
		return c, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProbeCache+1))
	if err != nil || len(b) > maxProbeCache {
		return c, false
	}
	return decodeProbeCache(b, m.key)
}

// decodeProbeCache reads a cache file; one that is not exactly what save writes for key is a miss.
func decodeProbeCache(b []byte, key string) (probeCacheFile, bool) {
	var c probeCacheFile
	if err := protocol.DecodeJSON(b, &c); err != nil || c.Key != key || c.Stamp == "" {
		return c, false
	}
	for _, r := range c.Results {
		if len(r.Argv) == 0 {
			return c, false
		}
	}
	return c, true
}

// versionOutput is the cached `openssl version -a`, which names the configuration and engines directories.
func (c probeCacheFile) versionOutput() string {
	for _, r := range c.Results {
		if len(r.Argv) == 3 && r.Argv[1] == "version" && r.Argv[2] == "-a" {
			return r.Stdout
		}
	}
	return ""
}

// probeKey names what a probe asks: the agent, the openssl, the engines, providers and kcapi modes, and the
// environment its commands inherit.
func probeKey(opts ProbeOptions, openssl string) string {
	exe, _ := os.Executable()
	var b strings.Builder
	fmt.Fprintf(&b, "agent %s %s\nopenssl %s\n", filepath.Base(exe), AgentVersion(), openssl)
	fmt.Fprintf(&b, "engines %q\nproviders %q\nkcapi %q\n", opts.Engines, opts.Providers, opts.KCAPI)
	env := opensslEnv(os.Environ(), opts.Env)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "LD_") {
			env[k] = v
		}
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(&b, "env %s=%q\n", k, env[k])
	}
	h := newSHA256()
	h.Write([]byte(b.String()))
	return fmt.Sprintf("%x", h.Sum(nil))
}

// stamp describes what the probe's results depend on (see the top of this file); version is `openssl version
// -a`'s output, "" before it is known (the configuration and the engines then are left out). ok is false when the
// boot is unknown: without it a reboot cannot be told.
func (m *probeMemo) stamp(openssl, version string) (string, bool) {
	boot := readBootID(m.root)
	if boot == "" {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "boot %s\n", boot)
	fmt.Fprintf(&b, "openssl %s %s\n", openssl, fileStamp(openssl))
	fmt.Fprintf(&b, "ld.so.cache %s\n", fileStamp(m.root+"/etc/ld.so.cache"))
	fmt.Fprintf(&b, "devcrypto %s\n", fileStamp(m.root+"/dev/crypto"))
	fmt.Fprintf(&b, "afalg %v\n", kcapiSocketWorks() == nil)
	if mods, err := os.ReadFile(m.root + "/proc/modules"); err == nil {
		names, _ := parseProcModules(string(mods))
		fmt.Fprintf(&b, "modules %q\n", names)
	}
	if version == "" {
		return b.String(), true
	}
	conf := opensslEnv(os.Environ(), m.opts.Env)["OPENSSL_CONF"]
	if conf == "" {
		if dir := opensslDir(version); dir != "" {
			conf = dir + "/openssl.cnf"
		}
	}
	fmt.Fprintf(&b, "conf %s %s\n", conf, fileStamp(conf))
	for _, inc := range confIncludes(conf) {
		fmt.Fprintf(&b, "include %s %s\n", inc, fileStamp(inc))
	}
	for _, key := range []string{"ENGINESDIR", "MODULESDIR"} {
		dir := versionDir(version, key)
		fmt.Fprintf(&b, "%s %s %s\n", key, dir, fileStamp(dir))
		if key == "ENGINESDIR" && dir != "" {
			for _, e := range append(slices.Clone(standardEngines), m.opts.Engines...) {
				fmt.Fprintf(&b, "engine %s %s\n", e, fileStamp(dir+"/"+e+".so"))
			}
		}
	}
	return b.String(), true
}

// confIncludes are the files and directories the .include lines of an openssl configuration name (the
// directive's optional "=" too), relative ones against the file's directory.
func confIncludes(conf string) []string {
	if conf == "" {
		return nil
	}
	b, err := os.ReadFile(conf)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), ".include")
		if !ok {
			continue
		}
		p := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "="))
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(conf), p)
		}
		out = append(out, p)
	}
	return out
}

// versionDir is a directory `openssl version -a` names: `ENGINESDIR: "/usr/lib/x86_64-linux-gnu/engines-3"`.
func versionDir(version, key string) string {
	for _, l := range strings.Split(version, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(l), key+":"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// fileStamp is a file's identity and version as stat gives them: size, inode, device number, mtime and ctime
// (nanoseconds); "absent" when there is none.
func fileStamp(path string) string {
	if path == "" {
		return "none"
	}
	s, err := statStamp(path)
	if errors.Is(err, os.ErrNotExist) {
		return "absent"
	}
	if err != nil {
		return "error " + err.Error()
	}
	return s
}

// argvKey is one command's key in the cache.
func argvKey(argv []string) string { return strings.Join(argv, "\x00") }
