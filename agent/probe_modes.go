package agent

import (
	"context"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// probeModes decides, for every standard mode and every engine or provider asked for, whether it can be
// measured and why not. v is nil when openssl cannot be used, and noOpenSSL says why (e.g. "openssl
// /opt/bin/openssl: not found"): cpu is available exactly when openssl is, which the controller relies on.
func probeModes(ctx context.Context, f *protocol.Facts, v *opensslVersion, noOpenSSL string, opts ProbeOptions) []protocol.ModeFact {
	engineMode := func(mode, engine string) protocol.ModeFact {
		st, ok := f.Engines[engine]
		switch {
		case !ok:
			return protocol.ModeFact{Mode: mode, Reason: "engine " + engine + ": not tested"}
		case st != "available":
			return protocol.ModeFact{Mode: mode, Reason: "engine " + engine + ": " + st}
		}
		return protocol.ModeFact{Mode: mode, Available: true, Reason: "engine " + engine}
	}
	var modes []protocol.ModeFact
	for _, mode := range protocol.StandardModes {
		var m protocol.ModeFact
		switch {
		case mode == protocol.ModeKCAPI && f.AFALG:
			m = protocol.ModeFact{Mode: mode, Available: true, Reason: "AF_ALG"}
		case mode == protocol.ModeKCAPI:
			m = protocol.ModeFact{Mode: mode, Reason: "AF_ALG socket: " + f.AFALGError}
		case v == nil:
			m = protocol.ModeFact{Mode: mode, Reason: noOpenSSL}
		case mode == protocol.ModeSoft:
			if env, ok := softModeEnv(f.Machine); ok {
				m = protocol.ModeFact{Mode: mode, Available: true, Reason: env}
			} else {
				m = protocol.ModeFact{Mode: mode, Reason: "no OpenSSL capability mask known for " + f.Machine}
			}
		case mode == protocol.ModeCPU:
			m = protocol.ModeFact{Mode: mode, Available: true}
		case mode == protocol.ModeDevCrypto && !f.DevCrypto:
			m = protocol.ModeFact{Mode: mode, Reason: "no /dev/crypto"}
		case v.modeEngine(mode) != "": // devcrypto with /dev/crypto, afalg
			m = engineMode(mode, v.modeEngine(mode))
		default:
			m = protocol.ModeFact{Mode: mode, Reason: "the probe does not know mode " + mode} // a mode added to protocol.Modes without its case here
		}
		modes = append(modes, m)
	}
	for _, e := range opts.Engines {
		if v == nil {
			modes = append(modes, protocol.ModeFact{Mode: protocol.EnginePrefix + e, Reason: noOpenSSL})
			continue
		}
		modes = append(modes, engineMode(protocol.EnginePrefix+e, e))
	}
	for _, m := range opts.KCAPI {
		modes = append(modes, kcapiDriverMode(f, m))
	}
	for _, p := range opts.Providers {
		mode := protocol.ProviderPrefix + p
		switch {
		case v == nil:
			modes = append(modes, protocol.ModeFact{Mode: mode, Reason: noOpenSSL})
		case !v.atLeast(3, 0, 0):
			modes = append(modes, protocol.ModeFact{Mode: mode, Reason: "providers need OpenSSL 3.0 or later, have " + f.OpenSSLVersion})
		default:
			if ok, why := probeProvider(ctx, f.OpenSSLPath, p, opts); ok {
				modes = append(modes, protocol.ModeFact{Mode: mode, Available: true, Reason: "provider " + p})
			} else {
				modes = append(modes, protocol.ModeFact{Mode: mode, Reason: "provider " + p + ": " + why})
			}
		}
	}
	return modes
}

// probeOptionsForPlan asks the probe about the engines and providers the plan's modes name.
func probeOptionsForPlan(plan protocol.Plan) ProbeOptions {
	opts := ProbeOptions{OpenSSL: plan.OpenSSL, Env: envList(plan.Env)}
	for _, m := range plan.Modes {
		if e, ok := strings.CutPrefix(m, protocol.EnginePrefix); ok && e != "" {
			opts.Engines = append(opts.Engines, e)
		}
		if p, ok := strings.CutPrefix(m, protocol.ProviderPrefix); ok && p != "" {
			opts.Providers = append(opts.Providers, p)
		}
		if strings.HasPrefix(m, protocol.KCAPIPrefix) && !slices.Contains(opts.KCAPI, m) {
			opts.KCAPI = append(opts.KCAPI, m)
		}
	}
	return opts
}

// kcapiDriverMode says whether mode kcapi:all or kcapi:DRIVER can be measured: AF_ALG must work, and a named
// driver must be in /proc/crypto with a self-test that did not fail. A template instance the kernel has not made
// yet (cbc(aes-generic) before anything asked for it) is not listed until the sweep binds it, so a name with
// parentheses that is absent is available, and the sweep checks what the bind made.
func kcapiDriverMode(f *protocol.Facts, mode string) protocol.ModeFact {
	if !f.AFALG {
		return protocol.ModeFact{Mode: mode, Reason: "AF_ALG socket: " + f.AFALGError}
	}
	d, ok := protocol.KCAPIDriver(mode)
	if !ok {
		if mode == protocol.KCAPIAll {
			return protocol.ModeFact{Mode: mode, Available: true, Reason: "AF_ALG, every implementation in /proc/crypto"}
		}
		return protocol.ModeFact{Mode: mode, Reason: "no driver named"}
	}
	if why := protocol.CheckKCAPIDriverName(d); why != "" {
		return protocol.ModeFact{Mode: mode, Reason: why}
	}
	for _, a := range f.ProcCrypto {
		if a.Driver != d {
			continue
		}
		if a.Internal {
			return protocol.ModeFact{Mode: mode, Reason: "driver " + d + " is internal: AF_ALG cannot bind it"}
		}
		if a.Selftest != "" && a.Selftest != "passed" {
			return protocol.ModeFact{Mode: mode, Reason: "driver " + d + ": self-test " + a.Selftest}
		}
		why := "AF_ALG bound to " + d
		if protocol.IsOffload(a) {
			why += " (offload)"
		}
		return protocol.ModeFact{Mode: mode, Available: true, Reason: why}
	}
	if strings.Contains(d, "(") {
		return protocol.ModeFact{Mode: mode, Available: true, Reason: "AF_ALG bound to " + d + ", a template instance made on first use"}
	}
	return protocol.ModeFact{Mode: mode, Reason: "no driver " + d + " in /proc/crypto"}
}
