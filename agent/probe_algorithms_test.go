package agent

import (
	"context"
	"os/exec"
	"reflect"
	"testing"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// TestProbeChecksAlgorithms: the probe checks a plan's algorithm names against what this machine's openssl lists
// (the real one), and names the nearest it has for each it lacks; names openssl speed knows itself (rsa2048) and
// MACs over a listed digest pass.
func TestProbeChecksAlgorithms(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed (apt-get install openssl)")
	}
	algs := []string{"aes128cbc", "aes-128-cbc", "sha256", "hmac-sha256", "rsa2048", "sha265", "hmac-sha265", "blowfish-xyz-9000"}
	f, _, v := probeFacts(context.Background(), ProbeOptions{Algorithms: algs, Timeout: 30 * time.Second})
	if v == nil {
		t.Fatalf("probe found no usable openssl: %v", f.Errors)
	}
	want := []protocol.UnknownAlgorithm{{Name: "aes128cbc", Suggestion: "aes-128-cbc"}, {Name: "sha265", Suggestion: "sha256"},
		{Name: "hmac-sha265", Suggestion: "hmac-sha256"}, {Name: "blowfish-xyz-9000"}}
	if !reflect.DeepEqual(f.UnknownAlgorithms, want) {
		t.Errorf("unknown algorithms %+v, want %+v (errors %v)", f.UnknownAlgorithms, want, f.Errors)
	}
	if f, _, _ := probeFacts(context.Background(), ProbeOptions{Timeout: 30 * time.Second}); f.UnknownAlgorithms != nil {
		t.Errorf("a probe asked to check nothing found unknown algorithms %+v", f.UnknownAlgorithms)
	}
}

// TestParseAlgorithmList reads the list forms of OpenSSL 1.0.x (list-cipher-algorithms), 1.1.1 and 3.x
// (Legacy and Provided sections, aliases, OIDs), and refuses to read anything from a command that failed.
func TestParseAlgorithmList(t *testing.T) {
	const v102 = "AES-128-CBC\nAES-128-ECB\naes128 => AES-128-CBC\nDES-EDE3-CBC\n"
	const v111 = "AES-128-CBC\nAES-128-CBC-HMAC-SHA1\naes128 => AES-128-CBC\nChaCha20-Poly1305\nSHA256\nRSA-SHA256 => SHA256\n"
	const v3 = "Legacy:\n  AES-128-CBC\n  aes128 => AES-128-CBC\nProvided:\n  { 2.16.840.1.101.3.4.1.2, AES-128-CBC, AES128 } @ default\n" +
		"  { 1.2.156.10197.1.401, SM3 } @ default\n  SHAKE-128 @ default\n"
	for _, tc := range []struct {
		name string
		runs []childResult
		want []string
		ok   bool
	}{
		{"1.0.2", []childResult{{Exit: 1, Stdout: "openssl:Error: 'list' is an invalid command.\nasn1parse\n"}, {Stdout: v102}, {Stdout: "SHA256\n"}},
			[]string{"aes-128-cbc", "aes-128-ecb", "aes128", "des-ede3-cbc", "sha256"}, true},
		{"1.1.1", []childResult{{Stdout: v111}}, []string{"aes-128-cbc", "aes-128-cbc-hmac-sha1", "aes128", "chacha20-poly1305", "sha256", "rsa-sha256"}, true},
		{"3.x", []childResult{{Stdout: v3}, {Stdout: "Invalid command 'list-cipher-algorithms'; type \"help\" for a list.\n"}},
			[]string{"aes-128-cbc", "aes128", "sm3", "shake-128"}, true},
		{"nothing listed", []childResult{{Exit: 1, Stderr: "unknown command"}, {Err: exec.ErrNotFound}}, nil, false},
	} {
		names, ok := listedAlgorithms(tc.runs)
		if ok != tc.ok {
			t.Errorf("%s: ok = %v, want %v", tc.name, ok, tc.ok)
		}
		for _, n := range tc.want {
			if !names[n] {
				t.Errorf("%s: %q not read from the list (read %v)", tc.name, n, names)
			}
		}
		for n := range names {
			if n == "legacy:" || n == "provided:" || n == "default" || n == "@" || isOID(n) || n == "asn1parse" {
				t.Errorf("%s: read %q as an algorithm", tc.name, n)
			}
		}
	}
}

func FuzzParseAlgorithmList(f *testing.F) {
	f.Add("Legacy:\n  AES-128-CBC\n  aes128 => AES-128-CBC\nProvided:\n  { 2.16.840.1.101.3.4.1.2, AES-128-CBC, AES128 } @ default\n")
	f.Add("{ , } @ @ => =>\n:")
	f.Fuzz(func(t *testing.T, out string) {
		names := map[string]bool{}
		parseAlgorithmList(out, names)
		for n := range names {
			if n == "" || isOID(n) {
				t.Fatalf("read %q as a name from %q", n, out)
			}
		}
		_ = unknownAlgorithms([]string{"aes128cbc", "sha256"}, names)
	})
}

// TestSuggestPrefersDashedSpelling: of the names that differ from the unknown one only by dashes and
// underscores, suggest picks the one with the most dashes, the first in byte order among equals, whatever
// order the set yields them in; without one it picks the nearest by edits, keeping a MAC's prefix.
func TestSuggestPrefersDashedSpelling(t *testing.T) {
	for _, tc := range []struct {
		alg, name string
		names     []string
		want      string
	}{
		{"aes128cbc", "aes128cbc", []string{"aes128cbc2", "aes128-cbc", "aes-128-cbc", "aes_128_cbc", "aes-128cbc"}, "aes-128-cbc"},
		{"abcd", "abcd", []string{"ab-cd", "a-bcd", "abc-d"}, "a-bcd"},
		{"hmac-sha265", "sha265", []string{"sha256", "sha512", "sha-265"}, "hmac-sha-265"},
		{"hmac-sha265", "sha265", []string{"sha256", "sha512"}, "hmac-sha256"},
		{"blowfish-xyz-9000", "blowfish-xyz-9000", []string{"sha256"}, ""},
	} {
		for range 20 { // map order varies from one range to the next
			names := map[string]bool{}
			for _, n := range tc.names {
				names[n] = true
			}
			if got := suggest(tc.alg, tc.name, names); got != tc.want {
				t.Errorf("suggest(%q, %q, %v) = %q, want %q", tc.alg, tc.name, tc.names, got, tc.want)
				break
			}
		}
	}
}
