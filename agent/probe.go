package agent

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"

	"golang.org/x/sys/unix"
)

// ProbeOptions says what the probe looks for beyond the standard facts.
type ProbeOptions struct {
	OpenSSL   string        // openssl binary, path or name; "openssl" when empty
	Engines   []string      // engines to test besides cryptodev, devcrypto, afalg and af_alg
	Providers []string      // OpenSSL 3 providers to test (provider:NAME modes)
	KCAPI     []string      // kcapi:DRIVER and kcapi:all modes the plan names, whole
	Timeout   time.Duration // per external command; 10 s when zero
	Root      string        // prefix for /proc, /sys, /etc and /dev (tests); "" is the real root
	Env       []string      // extra KEY=VALUE for every openssl command (a plan's OPENSSL_CONF, OPENSSL_ENGINES)
	// Algorithms are checked against the ciphers and digests openssl lists: those it lacks go to
	// Facts.UnknownAlgorithms, so that the controller refuses them before measuring.
	Algorithms []string
	// CacheDir keeps the openssl commands' results between probes while what they depend on is unchanged
	// (probe_cache.go); "" probes afresh every time.
	CacheDir string

	memo *probeMemo // this probe's cache, set by probeFacts
}

// standardEngines are tested by every probe: the engines of protocol.Modes' entries.
var standardEngines = protocol.ModeEngines()

// Probe learns what the board is and which modes it can measure. It never fails: a fact it cannot read stays
// empty and the reason goes to protocol.Facts.Errors.
func Probe(ctx context.Context, opts ProbeOptions) protocol.Facts {
	f, _, _ := probeFacts(ctx, opts)
	return f
}

// probeFacts is Probe that also returns the resolved openssl path and its version for the sweep.
func probeFacts(ctx context.Context, opts ProbeOptions) (protocol.Facts, string, *opensslVersion) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	var f protocol.Facts
	addErr := func(format string, a ...any) { f.Errors = append(f.Errors, fmt.Sprintf(format, a...)) }
	path := func(p string) string { return opts.Root + p }

	if h, err := os.Hostname(); err == nil {
		f.Hostname = h
	} else {
		addErr("hostname: %v", err)
	}
	probeUname(&f, addErr)
	f.BootID = readBootID(opts.Root)
	readBoardFiles(&f, opts.Root, runtime.NumCPU, addErr)

	if _, err := os.Stat(path("/dev/crypto")); err == nil {
		f.DevCrypto = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		addErr("stat /dev/crypto: %v", err)
	}
	if err := kcapiSocketWorks(); err == nil {
		f.AFALG = true
	} else {
		f.AFALGError = err.Error()
	}
	readCryptoProcs(&f, opts.Root, addErr)

	openssl := opts.OpenSSL
	if openssl == "" {
		openssl = "openssl"
	}
	var version *opensslVersion
	var noOpenSSL string // why no openssl mode can be measured, as every such mode's reason
	if p, err := exec.LookPath(openssl); err != nil {
		addErr("find openssl: %v", err)
		noOpenSSL = noOpenSSLReason(openssl, lookPathReason(err))
	} else {
		f.OpenSSLPath = p
		opts.memo = openProbeMemo(opts, p)
		engines := append(append([]string{}, standardEngines...), opts.Engines...)
		v, why := probeOpenSSL(ctx, &f, p, engines, opts)
		if why == "" {
			version = &v
			if len(opts.Algorithms) > 0 {
				unknown, why := probeAlgorithms(ctx, p, version, opts.Algorithms, opts)
				f.UnknownAlgorithms = unknown
				if why != "" {
					addErr("%s", why)
				}
			}
		}
		noOpenSSL = why
	}
	f.Modes = probeModes(ctx, &f, version, noOpenSSL, opts)
	probeEnvironment(&f, opts, addErr)
	f.Power = probePower(opts.Root)
	if m := opts.memo; m != nil {
		f.ProbeCache = "miss"
		if m.hit {
			f.ProbeCache = "hit"
		} else if err := m.save(f.OpenSSLPath); err != nil {
			addErr("%v", err)
		}
	}
	return f, f.OpenSSLPath, version
}

// readBoardFiles reads what both probes take from a board's files under root, with the same parsers: the
// agent's probe from the board's own /, the shell path's (RemoteFacts) from the controller's mirror of them, so
// that the two cannot drift apart. It reads os-release, /proc/cpuinfo (cores: when cpuinfo names none), the
// clusters (sysfs topology with cpuinfo's parts, as far as root holds them: the shell path's mirror has the
// cpufreq files alone, and pinning there is refused anyway), cpu0's cpufreq and /proc/meminfo; the crypto
// drivers and interrupts are readCryptoProcs'.
func readBoardFiles(f *protocol.Facts, root string, cores func() int, addErr func(string, ...any)) {
	path := func(p string) string { return root + p }
	f.OSRelease = readOSRelease(addErr, path("/etc/os-release"), path("/usr/lib/os-release"))
	if b, err := os.ReadFile(path("/proc/cpuinfo")); err == nil {
		f.CPU = parseCPUInfo(bytes.NewReader(b))
		f.CPU.Clusters = readClusters(root, b)
	} else {
		addErr("read cpuinfo: %v", err)
	}
	if f.CPU.Cores == 0 {
		f.CPU.Cores = cores()
	}
	probeCPUFreq(&f.CPU, path("/sys/devices/system/cpu/cpu0/cpufreq"), addErr)
	if kib, err := readMemTotal(path("/proc/meminfo")); err == nil {
		f.MemKiB = kib
	} else {
		addErr("read meminfo: %v", err)
	}
}

// noOpenSSLReason is every openssl mode's reason on a board without the openssl named (as the plan or the
// probe's options say it; "" or "openssl" is the default name alone, a configured one is named beside it).
func noOpenSSLReason(name, why string) string {
	label := "openssl"
	if name != "" && name != label {
		label += " " + name
	}
	return label + ": " + why
}

// lookPathReason says briefly why exec.LookPath found no openssl: the path a user configured is named beside it.
func lookPathReason(err error) string {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "not found in $PATH"
	case errors.Is(err, fs.ErrNotExist):
		return "not found"
	case errors.Is(err, fs.ErrPermission):
		return "not executable (permission denied)"
	}
	return err.Error()
}

func probeUname(f *protocol.Facts, addErr func(string, ...any)) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		addErr("uname: %v", err)
		return
	}
	s := func(b []byte) string { return string(bytes.TrimRight(b, "\x00")) }
	f.Machine = s(u.Machine[:])
	f.Kernel = s(u.Release[:])
	f.Uname = strings.Join([]string{s(u.Sysname[:]), s(u.Nodename[:]), f.Kernel, s(u.Version[:]), f.Machine}, " ")
}

// readOSRelease parses the first os-release file that exists: KEY=VALUE lines, values optionally quoted.
func readOSRelease(addErr func(string, ...any), paths ...string) map[string]string {
	var lastErr error
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			lastErr = err
			continue
		}
		m := map[string]string{}
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
			if !ok || k == "" || strings.HasPrefix(k, "#") {
				continue
			}
			if uq, err := strconv.Unquote(v); err == nil {
				v = uq
			} else {
				v = strings.Trim(v, `'"`)
			}
			m[k] = v
		}
		return m
	}
	addErr("read os-release: %v", lastErr)
	return nil
}

// probeCPUFreq reads cpu0's cpufreq; boards and VMs without cpufreq are normal, so absence is not an error.
func probeCPUFreq(c *protocol.CPUFacts, dir string, addErr func(string, ...any)) {
	read := func(name string) (string, bool) {
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				addErr("read cpufreq %s: %v", name, err)
			}
			return "", false
		}
		return strings.TrimSpace(string(b)), true
	}
	khz := func(name string) float64 {
		s, ok := read(name)
		if !ok {
			return 0
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			addErr("parse cpufreq %s %q: %v", name, s, err)
			return 0
		}
		return v / 1000
	}
	if mhz := khz("scaling_cur_freq"); mhz > 0 {
		c.CurMHz = mhz
	} else if mhz := khz("cpuinfo_cur_freq"); mhz > 0 {
		c.CurMHz = mhz
	}
	if mhz := khz("cpuinfo_max_freq"); mhz > 0 {
		c.MaxMHz = mhz
	}
	c.Governor, _ = read("scaling_governor")
}

func readMemTotal(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "MemTotal:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				break
			}
			return strconv.ParseInt(fields[0], 10, 64)
		}
	}
	return 0, errors.New("no MemTotal line")
}

// readCryptoProcs fills f's kernel crypto drivers (/proc/crypto) and crypto device interrupts (/proc/interrupts)
// from the tree at root, for the agent's probe and the shell path's mirrored files alike.
func readCryptoProcs(f *protocol.Facts, root string, addErr func(string, ...any)) {
	if b, err := os.ReadFile((root + "/proc/crypto")); err == nil {
		algs, err := ParseProcCrypto(bytes.NewReader(b))
		if err != nil {
			addErr("%v", err)
		}
		f.ProcCrypto = algs
	} else {
		addErr("read /proc/crypto: %v", err)
	}
	if b, err := os.ReadFile((root + "/proc/interrupts")); err == nil {
		lines, err := parseCryptoInterrupts(bytes.NewReader(b))
		if err != nil {
			addErr("%v", err)
		}
		for _, l := range lines {
			f.Interrupts = append(f.Interrupts, l.Text)
		}
	} else {
		addErr("read /proc/interrupts: %v", err)
	}
}
