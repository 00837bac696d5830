package agent

import (
	"context"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// listAlgorithmsArgv are the commands that list the ciphers and digests `openssl speed -evp` (and -hmac, -cmac)
// can take: `openssl list -cipher-algorithms -digest-algorithms` from 1.1.0, list-cipher-algorithms and
// list-message-digest-algorithms before.
func listAlgorithmsArgv(openssl string, v *opensslVersion) [][]string {
	modern := [][]string{{openssl, "list", "-cipher-algorithms", "-digest-algorithms"}}
	legacy := [][]string{{openssl, "list-cipher-algorithms"}, {openssl, "list-message-digest-algorithms"}}
	switch {
	case v == nil: // the shell path runs them before it knows the version: the ones that answer count
		return append(modern, legacy...)
	case v.atLeast(1, 1, 0):
		return modern
	}
	return legacy
}

// parseAlgorithmList reads the names an `openssl list` of ciphers or digests prints, lower-cased: "AES-128-CBC",
// "aes128 => AES-128-CBC" (both names), "{ 2.16.840.1.101.3.4.1.2, AES-128-CBC, AES128 } @ default" (not the
// OID). Section headings ("Legacy:", "Provided:") are not names.
func parseAlgorithmList(out string, names map[string]bool) {
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasSuffix(line, ":") && !strings.ContainsAny(line, " {") {
			continue
		}
		if i := strings.LastIndex(line, " @ "); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSuffix(strings.TrimPrefix(line, "{"), "}")
		for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '=' || r == '>' }) {
			if part != "" && !isOID(part) {
				names[strings.ToLower(part)] = true
			}
		}
	}
}

func isOID(s string) bool {
	return strings.Trim(s, "0123456789.") == "" && strings.Contains(s, ".")
}

// listedAlgorithms reads the outputs of listAlgorithmsArgv's commands; ok is false when none of them listed
// anything (LibreSSL, a build without the command): then no name can be checked.
func listedAlgorithms(runs []childResult) (map[string]bool, bool) {
	names := map[string]bool{}
	for _, r := range runs {
		// OpenSSL 3 answers the 1.0 commands with "Invalid command" and exit 0; 1.0 answers `list` with exit 1
		if r.Err != nil || r.Exit != 0 || strings.Contains(strings.ToLower(r.Stdout+r.Stderr), "invalid command") {
			continue
		}
		parseAlgorithmList(r.Stdout, names)
	}
	return names, len(names) > 0
}

// speedName is the cipher or digest name `openssl speed` looks up for alg, or "" for the algorithms it knows
// by its own names (rsa2048, ecdsap256, ed25519, ...), which opensslspeed checks.
func speedName(alg string) string {
	args, asym, err := opensslspeed.Args(alg)
	if err != nil || asym || len(args) != 2 {
		return ""
	}
	return args[1]
}

// unknownAlgorithms are the algorithms of algs whose cipher or digest is not among names, each with the nearest
// name listed: the same letters and digits without the dashes ("aes128cbc" → "aes-128-cbc"), else the closest
// by edit distance when it is close.
func unknownAlgorithms(algs []string, names map[string]bool) []protocol.UnknownAlgorithm {
	var out []protocol.UnknownAlgorithm
	for _, alg := range algs {
		name := speedName(alg)
		if name == "" || names[name] {
			continue
		}
		out = append(out, protocol.UnknownAlgorithm{Name: alg, Suggestion: suggest(alg, name, names)})
	}
	return out
}

func suggest(alg, name string, names map[string]bool) string {
	prefix := strings.TrimSuffix(alg, name) // "hmac-" of hmac-sha265
	squash := strings.NewReplacer("-", "", "_", "").Replace
	var same []string
	best, bestD := "", len(name)/3+1
	for n := range names {
		if squash(n) == squash(name) {
			same = append(same, n)
			continue
		}
		if d := opensslspeed.EditDistance(n, name); d < bestD || d == bestD && n < best {
			best, bestD = n, d
		}
	}
	// Of the same name spelled differently, the dashed spelling first (aes-128-cbc, not aes128cbc), then the
	// first in byte order: the least by a loop, since a sort of its own would cost the ARMv5 agent about 8 KB.
	for i, n := range same {
		if d, db := strings.Count(n, "-"), strings.Count(best, "-"); i == 0 || d > db || d == db && n < best {
			best = n
		}
	}
	if best == "" {
		return ""
	}
	return prefix + best
}

// probeAlgorithms checks the plan's algorithms against what openssl lists, on this machine.
func probeAlgorithms(ctx context.Context, openssl string, v *opensslVersion, algs []string, opts ProbeOptions) ([]protocol.UnknownAlgorithm, string) {
	var runs []childResult
	for _, argv := range listAlgorithmsArgv(openssl, v) {
		cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		runs = append(runs, runChild(cctx, argv, opts.Env))
		cancel()
	}
	names, ok := listedAlgorithms(runs)
	if !ok {
		return nil, "list algorithms: openssl listed no cipher or digest; algorithm names not checked"
	}
	return unknownAlgorithms(algs, names), ""
}

// CheckedAlgorithms are the algorithms of plan the probe checks against openssl's lists: every one, unless the
// plan has an engine:NAME or provider:NAME mode, whose ciphers a plain `openssl list` would not show.
func CheckedAlgorithms(plan protocol.Plan) []string {
	for _, m := range plan.Modes {
		if strings.HasPrefix(m, "engine:") || strings.HasPrefix(m, "provider:") {
			return nil
		}
	}
	return plan.Algorithms
}

// ListAlgorithmsArgv are the commands the shell path runs on a board, before it knows the board's OpenSSL
// version, so that RemoteFacts can check the plan's algorithm names (see listAlgorithmsArgv).
func ListAlgorithmsArgv(openssl string) [][]string { return listAlgorithmsArgv(openssl, nil) }
