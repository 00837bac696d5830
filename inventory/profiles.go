package inventory

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// Names of the built-in profiles.
const (
	QuickProfile = "quick"
	FullProfile  = "full"
)

// DefaultSizes returns a fresh copy of the block sizes OpenSSL 1.1.1 and later measure by default, in bytes
// (protocol.DefaultSizes).
func DefaultSizes() []int { return slices.Clone(protocol.DefaultSizes) }

// builtinProfiles returns fresh copies of the profiles every inventory has; a file may replace them.
//
// Neither names modes: a board measures every mode its probe finds (soft, cpu, and devcrypto, afalg, kcapi where
// the board has them) unless the board, a file's profile or --modes says otherwise, because accelerated against
// unaccelerated is the point of a run. quick stays quick by measuring two algorithms, not by dropping
// accelerators: 2 algorithms × 6 sizes × 1 s = 12 s per mode, 60 s of measurement on a board with all five
// standard modes (24 s with only soft and cpu), within about a minute with the start-up of each openssl. full:
// (8 symmetric algorithms × 6 sizes + 3 public-key ones × sign and verify) × 3 s = 162 s per mode and repeat,
// × 5 modes × 5 repeats = 67.5 min at most; modes a board lacks are skipped. nightly: full's algorithms at 1 s,
// each point repeated until its median is known to ±2 % (95 % interval): 54 s per mode and repeat, × 5 modes
// × 6 to 20 repeats = 27 to 90 min of measurement, stopped at the 60-minute budget of each board.
// TestBuiltinProfileDurations keeps these figures true.
func builtinProfiles() map[string]Profile {
	return map[string]Profile{
		QuickProfile: {
			Name:       QuickProfile,
			Algorithms: []string{"aes-128-cbc", "sha256"},
			Sizes:      DefaultSizes(),
			Seconds:    1,
			Threads:    1,
			Repeats:    1,
		},
		NightlyProfile: {
			Name: NightlyProfile,
			Algorithms: []string{"aes-128-cbc", "aes-256-cbc", "aes-128-gcm", "aes-256-gcm", "aes-128-ctr",
				"sha1", "sha256", "sha512", "rsa2048", "ecdsap256", "ed25519"},
			Sizes:        DefaultSizes(),
			Seconds:      1,
			Threads:      1,
			Repeats:      1,
			PrecisionPct: 2,
			MaxRepeat:    20,
			Budget:       time.Hour,
		},
		FullProfile: {
			Name: FullProfile,
			Algorithms: []string{"aes-128-cbc", "aes-256-cbc", "aes-128-gcm", "aes-256-gcm", "aes-128-ctr",
				"sha1", "sha256", "sha512", "rsa2048", "ecdsap256", "ed25519"},
			Sizes:   DefaultSizes(),
			Seconds: 3,
			Threads: 1,
			Repeats: 5,
		},
	}
}

// profile checks one [profiles.NAME] table. Keys left out take these values: modes empty (each board's own
// modes, else every mode the probe finds), sizes DefaultSizes, seconds 1, threads 1, repeats 1. algorithms is
// required.
func (b *builder) profile(name string, d profileDoc) (Profile, bool) {
	base := []string{"profiles", name}
	ctx := context(base)
	at := func(key string) int { return b.ps.pos.valueAt(appendPath(base, key)...) }
	before := len(b.ps.errs)
	if msg := checkName(name); msg != "" {
		b.ps.add(b.ps.pos.key(base...), ctx, "invalid profile name (%s)", msg)
	}
	switch {
	case d.Algorithms == nil:
		b.ps.add(b.ps.pos.key(base...), ctx, `missing algorithms (expected a list such as algorithms = ["aes-128-cbc", "sha256"])`)
	case len(*d.Algorithms) == 0:
		b.ps.add(at("algorithms"), ctx, `algorithms: expected at least one algorithm, such as ["aes-128-cbc", "sha256"]`)
	default:
		b.checkList(base, ctx, "algorithms", *d.Algorithms, checkAlgorithm)
	}
	if d.Modes != nil {
		b.checkList(base, ctx, "modes", *d.Modes, checkMode)
		if d.Algorithms != nil {
			if err := CheckSSHCiphers(*d.Algorithms, *d.Modes); err != nil {
				b.ps.add(at("algorithms"), ctx, "algorithms: %v", err)
			}
		}
	}
	p := Profile{Name: name, Algorithms: cloneStrings(derefSlice(d.Algorithms)), Modes: cloneStrings(derefSlice(d.Modes)),
		Sizes: DefaultSizes(), Seconds: 1, Threads: 1, Repeats: 1}
	if d.Sizes != nil {
		p.Sizes = b.sizes(base, ctx, *d.Sizes)
	}
	if d.Seconds != nil {
		p.Seconds = *d.Seconds
		if msg := checkSeconds(p.Seconds); msg != "" {
			b.ps.add(at("seconds"), ctx, "%s", msg)
		}
	}
	p.Threads = b.count(at("threads"), ctx, "threads", d.Threads, maxThreads)
	p.Repeats = b.count(at("repeats"), ctx, "repeats", d.Repeats, maxRepeats)
	b.adaptive(base, ctx, d, &p)
	if d.Agent != nil {
		if msg := checkAgent(*d.Agent); msg != "" {
			b.ps.add(at("agent"), ctx, "%s", msg)
		}
		p.Agent = *d.Agent
	}
	p.Validity = b.validityLimits(base, ctx, d.Validity)
	p.Prepare = b.preparation(base, ctx, d.Validity)
	p.ReconnectWait = b.reconnectWait(base, ctx, d.ReconnectWait)
	if d.CPUs != nil {
		if err := protocol.CheckCPUs(*d.CPUs); err != nil {
			b.ps.add(at("cpus"), ctx, "%v", err)
		}
		p.CPUs = *d.CPUs
	}
	if d.ClusterThreads != nil {
		p.ClusterThreads = *d.ClusterThreads
	}
	return p, len(b.ps.errs) == before
}

// sizes checks block sizes: at least one, each 1 byte to 16 MiB, no duplicates.
func (b *builder) sizes(base []string, ctx string, sizes []int64) []int {
	if len(sizes) == 0 {
		b.ps.add(b.ps.pos.valueAt(appendPath(base, "sizes")...), ctx, "sizes: expected at least one block size in bytes, such as [16, 1024, 16384]")
		return nil
	}
	out := make([]int, 0, len(sizes))
	seen := map[int64]bool{}
	for i, s := range sizes {
		el := "sizes[" + strconv.Itoa(i) + "]"
		off := b.ps.pos.valueAt(appendPath(base, "sizes", "["+strconv.Itoa(i)+"]")...)
		switch msg := checkSize(s); {
		case msg != "":
			b.ps.add(off, ctx, "%s: %s", el, msg)
		case seen[s]:
			b.ps.add(off, ctx, "%s: %d is listed twice", el, s)
		}
		seen[s] = true
		out = append(out, int(s))
	}
	return out
}

// count checks an optional positive integer; absent means 1.
func (b *builder) count(off int, ctx, key string, v *int64, max int64) int {
	if v == nil {
		return 1
	}
	if msg := checkCount(key, *v, max); msg != "" {
		b.ps.add(off, ctx, "%s", msg)
		return 1
	}
	return int(*v)
}

func checkAlgorithm(a string) string {
	if msg, ssh := checkSSHCipherName(a); ssh {
		return msg
	}
	if len(a) > maxNameLen || !algorithmRE.MatchString(a) {
		return fmt.Sprintf("invalid algorithm %q (expected lower-case letters, digits and '-', such as aes-128-cbc)", a)
	}
	return ""
}

func checkSize(s int64) string {
	if s < 1 || s > maxSize {
		return fmt.Sprintf("size %d is out of range (expected 1 to %d bytes)", s, maxSize)
	}
	return ""
}

// checkSeconds refuses a time per point that openssl cannot run: out of range, or not whole. Every openssl
// that has -seconds (1.1.1, 3.x) takes whole seconds ("-seconds +int"; 1.0 has none), so 0.5 would run 1 s,
// a point timed otherwise than asked, noted only in a flag of the points.
func checkSeconds(s float64) string {
	if math.IsNaN(s) || s <= 0 || s > maxSeconds {
		return fmt.Sprintf("seconds %v is out of range (expected more than 0 and at most %d)", s, maxSeconds)
	}
	if s != math.Trunc(s) {
		return fmt.Sprintf("seconds %v is not a whole number: openssl speed -seconds takes whole seconds "+
			"(OpenSSL 1.1.1 and 3.x; 1.0 has no -seconds), so %v s cannot be measured as asked; use %v",
			s, s, wholeSeconds(s))
	}
	return ""
}

// wholeSeconds suggests the whole seconds nearest s: "1" below one, else the two around it.
func wholeSeconds(s float64) string {
	if s < 1 {
		return "1"
	}
	return fmt.Sprintf("%v or %v", math.Floor(s), math.Ceil(s))
}

// CheckSeconds is checkSeconds for a time per point given elsewhere (a command line): "" when openssl can run it.
func CheckSeconds(s float64) string { return checkSeconds(s) }

func checkCount(key string, v, max int64) string {
	if v < 1 || v > max {
		return fmt.Sprintf("%s %d is out of range (expected 1-%d)", key, v, max)
	}
	return ""
}

// ValidateProfile checks a profile built in code, such as a file's profile with command-line overrides, by the
// rules boards.toml follows. Every problem is reported, joined.
func ValidateProfile(p Profile) error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("profile %q: "+format, append([]any{p.Name}, args...)...))
	}
	if len(p.Algorithms) == 0 {
		add("no algorithms (expected at least one, such as aes-128-cbc)")
	}
	checkAll := func(key string, list []string, check func(string) string) {
		seen := map[string]bool{}
		for i, v := range list {
			if msg := check(v); msg != "" {
				add("%s[%d]: %s", key, i, msg)
			} else if seen[v] {
				add("%s[%d]: %q is listed twice", key, i, v)
			}
			seen[v] = true
		}
	}
	checkAll("algorithms", p.Algorithms, checkAlgorithm)
	if err := protocol.CheckCPUs(p.CPUs); err != nil {
		add("%v", err)
	}
	if p.ClusterThreads && p.CPUs == "" {
		add("cluster_threads needs cpus (the CPUs whose count is the -multi)")
	}
	checkAll("modes", p.Modes, checkMode)
	if err := CheckSSHCiphers(p.Algorithms, p.Modes); err != nil {
		add("algorithms: %v", err)
	}
	if len(p.Sizes) == 0 {
		add("no sizes (expected at least one block size in bytes)")
	}
	seen := map[int]bool{}
	for i, s := range p.Sizes {
		if msg := checkSize(int64(s)); msg != "" {
			add("sizes[%d]: %s", i, msg)
		} else if seen[s] {
			add("sizes[%d]: %d is listed twice", i, s)
		}
		seen[s] = true
	}
	for _, msg := range []string{checkSeconds(p.Seconds), checkCount("threads", int64(p.Threads), maxThreads),
		checkCount("repeats", int64(p.Repeats), maxRepeats)} {
		if msg != "" {
			add("%s", msg)
		}
	}
	for _, msg := range checkAdaptive(p) {
		if msg != "" {
			add("%s", msg)
		}
	}
	return errors.Join(errs...)
}
