package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// environmentDiff names what differs between two board runs' facts among those that change the numbers without
// changing a version: each OPENSSL_* variable (and each variable boards.toml sets for openssl), the OpenSSL
// configuration's engine and provider sections, the openssl binary, the kernel command line and the crypto
// modules loaded. "OPENSSL_ia32cap: unset → ~0x200000000000000". A fact one side did not record (an older agent,
// an import without it) says nothing, so that a new fact never reads as a change. Nil facts: nothing.
func environmentDiff(a, b *protocol.Facts) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	if a.OpenSSLEnv != nil && b.OpenSSLEnv != nil {
		names := map[string]bool{}
		for k := range a.OpenSSLEnv {
			names[k] = true
		}
		for k := range b.OpenSSLEnv {
			names[k] = true
		}
		for _, k := range sortedSet(names) {
			av, aok := a.OpenSSLEnv[k]
			bv, bok := b.OpenSSLEnv[k]
			if aok != bok || av != bv {
				out = append(out, fmt.Sprintf("%s: %s → %s", k, envValue(av, aok), envValue(bv, bok)))
			}
		}
	}
	if a.OpenSSLConf != "" && b.OpenSSLConf != "" {
		switch {
		case a.OpenSSLConf != b.OpenSSLConf:
			out = append(out, fmt.Sprintf("OpenSSL config: %s → %s", a.OpenSSLConf, b.OpenSSLConf))
		case a.OpenSSLConfDigest != "" && b.OpenSSLConfDigest != "" && a.OpenSSLConfDigest != b.OpenSSLConfDigest:
			out = append(out, fmt.Sprintf("engine/provider sections of %s: %s → %s", b.OpenSSLConf, a.OpenSSLConfDigest, b.OpenSSLConfDigest))
		}
	}
	if a.OpenSSLSHA256 != "" && b.OpenSSLSHA256 != "" && a.OpenSSLSHA256 != b.OpenSSLSHA256 {
		out = append(out, fmt.Sprintf("openssl binary sha256: %s → %s", shortDigest(a.OpenSSLSHA256), shortDigest(b.OpenSSLSHA256)))
	}
	if a.KernelCmdline != "" && b.KernelCmdline != "" && a.KernelCmdline != b.KernelCmdline {
		out = append(out, "kernel command line: "+listDiff(strings.Fields(a.KernelCmdline), strings.Fields(b.KernelCmdline), "added", "removed"))
	}
	if a.Modules != nil && b.Modules != nil {
		am, bm := protocol.CryptoModules(a.Modules, a.ProcCrypto), protocol.CryptoModules(b.Modules, b.ProcCrypto)
		if d := listDiff(am, bm, "loaded", "not loaded"); d != "" {
			out = append(out, "crypto modules: "+d)
		}
	}
	return out
}

func envValue(v string, ok bool) string {
	switch {
	case !ok:
		return "unset"
	case v == "":
		return `""`
	}
	return v
}

func shortDigest(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// listDiff says which items are new in b and which are gone from a ("cryptodev loaded, sa2ul not loaded"),
// "" when both hold the same items; the order of the items does not count, a repeated item does (a kernel
// parameter given twice).
func listDiff(a, b []string, added, removed string) string {
	count := map[string]int{}
	for _, s := range a {
		count[s]--
	}
	for _, s := range b {
		count[s]++
	}
	var plus, minus []string
	for s, n := range count {
		switch {
		case n > 0:
			plus = append(plus, s)
		case n < 0:
			minus = append(minus, s)
		}
	}
	sort.Strings(plus)
	sort.Strings(minus)
	var parts []string
	if len(plus) > 0 {
		parts = append(parts, strings.Join(plus, " ")+" "+added)
	}
	if len(minus) > 0 {
		parts = append(parts, strings.Join(minus, " ")+" "+removed)
	}
	if len(parts) == 0 && strings.Join(a, " ") != strings.Join(b, " ") {
		return "the same items in another order"
	}
	return strings.Join(parts, ", ")
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
