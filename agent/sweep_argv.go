package agent

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// ia32capSoftMask turns off, for OpenSSL on x86, AES-NI, PCLMULQDQ, SHA, VAES and VPCLMULQDQ (the bits are named
// beside opensslspeed.IA32CapSoftMask, which also decides when a capture's own mask is soft).
const ia32capSoftMask = "OPENSSL_ia32cap=" + opensslspeed.IA32CapSoftMask

// armcapSoftMask turns off NEON and the ARMv8 crypto extensions.
const armcapSoftMask = "OPENSSL_armcap=0"

// softModeEnv returns the environment variable that makes OpenSSL use its plain C code on machine (uname -m).
func softModeEnv(machine string) (string, bool) {
	m := strings.ToLower(machine)
	switch {
	case m == "x86_64" || m == "amd64" || m == "x86" || m == "i86pc" ||
		len(m) == 4 && m[0] == 'i' && strings.HasSuffix(m, "86"):
		return ia32capSoftMask, true
	case strings.HasPrefix(m, "arm") || strings.HasPrefix(m, "aarch64"):
		return armcapSoftMask, true
	}
	return "", false
}

// speedCommand is one `openssl speed` invocation of a sweep.
type speedCommand struct {
	Argv    []string
	Env     []string // extra variables on top of the agent's environment, KEY=VALUE
	Size    int      // the one block size it measures (-bytes); 0: asymmetric or OpenSSL's own size list
	Engine  string   // -engine set
	Decrypt bool
	Seconds float64  // nominal seconds per point as run: -seconds, or OpenSSL's default (3 s, 10 s asymmetric in 1.0)
	Flags   []string // notes every point of the command carries
	Algs    []string // a public-key group's algorithms, which its command measures together (sweep_asym.go)
}

// Per-point flags set by the sweep; the controller may match on their prefix (up to the colon).
const (
	flagDefault3s     = "default-3s: openssl %s has no -seconds, ran its default 3 s per size"
	flagSecondsRound  = "seconds-rounded: openssl -seconds takes whole seconds, ran %d s for %g s"
	flagDefaultSizes  = "default-sizes: openssl %s has no -bytes, measured its own size list"
	flagSplitAccounts = "accounting-split: one openssl run gave %d points; wall, user and sys are its totals divided by %d"
)

// speedModeOptions returns the options and environment a mode adds to `openssl speed`.
func speedModeOptions(mode string, v opensslVersion, machine string) (opts, env []string, engine string, err error) {
	switch {
	case mode == protocol.ModeCPU:
		return nil, nil, "", nil
	case mode == protocol.ModeSoft:
		e, ok := softModeEnv(machine)
		if !ok {
			return nil, nil, "", fmt.Errorf("mode soft: no OpenSSL capability mask known for %q", machine)
		}
		return nil, []string{e}, "", nil
	case v.modeEngine(mode) != "": // devcrypto, afalg
		engine = v.modeEngine(mode)
	case strings.HasPrefix(mode, protocol.EnginePrefix) && len(mode) > len(protocol.EnginePrefix):
		engine = strings.TrimPrefix(mode, protocol.EnginePrefix)
	case strings.HasPrefix(mode, protocol.ProviderPrefix) && len(mode) > len(protocol.ProviderPrefix):
		if !v.atLeast(3, 0, 0) {
			return nil, nil, "", fmt.Errorf("mode %s: providers need OpenSSL 3.0 or later", mode)
		}
		return []string{"-provider", strings.TrimPrefix(mode, protocol.ProviderPrefix)}, nil, "", nil
	default:
		return nil, nil, "", fmt.Errorf("mode %q: not an openssl mode", mode)
	}
	return []string{"-engine", engine}, nil, engine, nil
}

// buildSpeedCommands turns one (mode, algorithm) of a plan into the openssl commands that measure it: with
// -bytes (1.1.1+) one command per block size, so each point has its own CPU accounting; before that one command
// over OpenSSL's default sizes. It never builds a shell line.
func buildSpeedCommands(openssl string, v opensslVersion, machine string, plan protocol.Plan, mode, alg string, decrypt bool) ([]speedCommand, error) {
	algArgs, asym, err := opensslspeed.Args(alg)
	if err != nil {
		return nil, err
	}
	modeOpts, modeEnv, engine, err := speedModeOptions(mode, v, machine)
	if err != nil {
		return nil, err
	}
	base := []string{openssl, "speed", "-elapsed", "-mr"}
	var flags []string
	nominal := 3.0
	if asym && !v.atLeast(1, 1, 1) {
		nominal = 10
	}
	if plan.Seconds > 0 {
		if v.atLeast(1, 1, 1) {
			secs := int(math.Ceil(plan.Seconds))
			if secs < 1 {
				secs = 1
			}
			if float64(secs) != plan.Seconds {
				flags = append(flags, fmt.Sprintf(flagSecondsRound, secs, plan.Seconds))
			}
			base = append(base, "-seconds", strconv.Itoa(secs))
			nominal = float64(secs)
		} else {
			flags = append(flags, fmt.Sprintf(flagDefault3s, versionString(v)))
		}
	}
	if plan.Threads > 1 {
		base = append(base, "-multi", strconv.Itoa(plan.Threads))
	}
	base = append(base, modeOpts...)
	if decrypt {
		base = append(base, "-decrypt")
	}
	env := envList(plan.Env)
	env = append(env, modeEnv...)

	one := func(size int, extra []string, fl []string) speedCommand {
		argv := append(append(append([]string{}, base...), extra...), algArgs...)
		return speedCommand{Argv: argv, Env: env, Size: size, Engine: engine, Decrypt: decrypt, Seconds: nominal, Flags: fl}
	}
	if asym {
		return []speedCommand{one(0, nil, flags)}, nil
	}
	if !v.atLeast(1, 1, 1) {
		if len(plan.Sizes) > 0 {
			flags = append(flags, fmt.Sprintf(flagDefaultSizes, versionString(v)))
		}
		return []speedCommand{one(0, nil, flags)}, nil
	}
	sizes := plan.Sizes
	if len(sizes) == 0 {
		sizes = protocol.DefaultSizes
	}
	cmds := make([]speedCommand, 0, len(sizes))
	for _, s := range sizes {
		cmds = append(cmds, one(s, []string{"-bytes", strconv.Itoa(s)}, flags))
	}
	return cmds, nil
}

// envList renders a plan's environment as sorted KEY=VALUE pairs.
func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func versionString(v opensslVersion) string {
	name := fmt.Sprintf("%d.%d.%d%s", v.Major, v.Minor, v.Patch, v.Letter)
	if v.LibreSSL {
		name = "LibreSSL " + name
	}
	return name
}
