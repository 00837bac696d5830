package opensslspeed

import (
	"slices"
	"strings"
	"testing"
)

func TestCanonicalAlgorithm(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"aes-256 cbc", "aes-256-cbc"},
		{"AES-256-CBC", "aes-256-cbc"},
		{"aes-256-cbc", "aes-256-cbc"},
		{"  aes-128   cbc ", "aes-128-cbc"},
		{"sha256", "sha256"},
		{"SHA256", "sha256"},
		{"SHA2-256", "sha256"},
		{"md5", "md5"},
		{"hmac(md5)", "hmac-md5"},
		{"HMAC(SHA256)", "hmac-sha256"},
		{"cmac(aes-128-cbc)", "cmac-aes-128-cbc"},
		{"des cbc", "des-cbc"},
		{"des ede3", "des-ede3-cbc"},
		{"blowfish cbc", "bf-cbc"},
		{"cast cbc", "cast5-cbc"},
		{"rc5-32/12 cbc", "rc5-cbc"},
		{"camellia-128 cbc", "camellia-128-cbc"},
		{"aes-192 ige", "aes-192-ige"},
		{"rmd160", "ripemd160"},
		{"id-aes128-GCM", "aes-128-gcm"},
		{"ChaCha20-Poly1305", "chacha20-poly1305"},
		{"AES-128-GCM", "aes-128-gcm"},
		{"ghash", "ghash"},
		{"rsa2048", "rsa"},
		{"dsa1024", "dsa"},
		{"ecdsap256", "ecdsa"},
		{"ecdhx25519", "ecdh"},
		{"ed25519", "eddsa"},
		{"Ed448", "eddsa"},
		{"ffdh2048", "ffdh"},
		{"CurveSM2", "sm2"},
		{"", ""},
	} {
		if got := CanonicalAlgorithm(tc.in); got != tc.want {
			t.Errorf("CanonicalAlgorithm(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCanonAsymName(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want speedAsym
	}{
		{"rsa2048", speedAsym{alg: "rsa", bits: 2048}},
		{"ecdsap256", speedAsym{alg: "ecdsa", bits: 256, curve: "nistp256"}},
		{"ecdsap160", speedAsym{alg: "ecdsa", bits: 160, curve: "secp160r1"}},
		{"ecdhk571", speedAsym{alg: "ecdh", bits: 571, curve: "nistk571"}},
		{"ecdsabrp384t1", speedAsym{alg: "ecdsa", bits: 384, curve: "brainpoolp384t1"}},
		{"ecdhx448", speedAsym{alg: "ecdh", bits: 448, curve: "x448"}},
		{"ed25519", speedAsym{alg: "eddsa", bits: 253, curve: "ed25519"}},
		{"ffdh4096", speedAsym{alg: "ffdh", bits: 4096}},
		{"ecdsa", speedAsym{alg: "ecdsa"}},
	} {
		got, ok := canonAsymName(tc.in)
		if !ok || got != tc.want {
			t.Errorf("canonAsymName(%q) = %+v, %v, want %+v", tc.in, got, ok, tc.want)
		}
	}
	for _, in := range []string{"aes-128-cbc", "sha256", "rsa-2048", "ecdsaq256", ""} {
		if got, ok := canonAsymName(in); ok {
			t.Errorf("canonAsymName(%q) = %+v, want not asymmetric", in, got)
		}
	}
}

func TestSpeedArgs(t *testing.T) {
	for _, tc := range []struct {
		alg  string
		args []string
		asym bool
	}{
		{"aes-128-cbc", []string{"-evp", "aes-128-cbc"}, false},
		{"aes-256-gcm", []string{"-evp", "aes-256-gcm"}, false},
		{"sha256", []string{"-evp", "sha256"}, false},
		{"chacha20-poly1305", []string{"-evp", "chacha20-poly1305"}, false},
		{"hmac-sha256", []string{"-hmac", "sha256"}, false},
		{"cmac-aes-128-cbc", []string{"-cmac", "aes-128-cbc"}, false},
		{"rsa2048", []string{"rsa2048"}, true},
		{"ecdsap256", []string{"ecdsap256"}, true},
		{"ecdhx25519", []string{"ecdhx25519"}, true},
		{"ed25519", []string{"ed25519"}, true},
		{"ffdh2048", []string{"ffdh2048"}, true},
		{"ml-kem-768", []string{"ml-kem-768"}, true},
	} {
		args, asym, err := Args(tc.alg)
		if err != nil {
			t.Errorf("Args(%q): %v", tc.alg, err)
			continue
		}
		if !slices.Equal(args, tc.args) || asym != tc.asym {
			t.Errorf("Args(%q) = %q, %v, want %q, %v", tc.alg, args, asym, tc.args, tc.asym)
		}
	}
	for _, bad := range []string{"", "-engine", "AES-128-CBC", "aes 128", "aes;rm", "aes/cbc", "hmac-", "x\n", strings.Repeat("a", 65)} {
		if args, _, err := Args(bad); err == nil {
			t.Errorf("Args(%q) = %q, want an error", bad, args)
		}
	}
}
