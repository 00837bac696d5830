package fleet

import (
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// TestCapFacts: every string of the facts is capped to its field's limit, at a UTF-8 boundary, with a marker
// saying how much was cut; one within its limit, escapes and all, is kept as the board said it.
func TestCapFacts(t *testing.T) {
	long := strings.Repeat("h", 200_000)
	f := protocol.Facts{
		Hostname:   long,
		Kernel:     "6.1.0-evil\x1b[2J",
		Machine:    strings.Repeat("é", 100), // 200 bytes: cut at 80, a rune boundary
		OSRelease:  map[string]string{"PRETTY_NAME": long, strings.Repeat("k", 2000): "v"},
		Engines:    map[string]string{"afalg": "available"},
		Modules:    []string{"aes_ce", strings.Repeat("m", 100)},
		ProcCrypto: []protocol.CryptoAlg{{Name: "cbc(aes)", Driver: long}},
		Errors:     []string{long},
		Evidence:   &protocol.Evidence{OfflineCPUs: long},
	}
	capFacts(&f)
	for _, c := range []struct{ what, got, want string }{
		{"hostname", f.Hostname, strings.Repeat("h", 255) + "…(199,745 more bytes)"},
		{"kernel", f.Kernel, "6.1.0-evil\x1b[2J"},
		{"machine", f.Machine, strings.Repeat("é", 40) + "…(120 more bytes)"},
		{"os-release value", f.OSRelease["PRETTY_NAME"], strings.Repeat("h", 1024) + "…(198,976 more bytes)"},
		{"os-release key", f.OSRelease[strings.Repeat("k", 1024)+"…(976 more bytes)"], "v"},
		{"engine", f.Engines["afalg"], "available"},
		{"module", f.Modules[1], strings.Repeat("m", 64) + "…(36 more bytes)"},
		{"module kept", f.Modules[0], "aes_ce"},
		{"/proc/crypto driver", f.ProcCrypto[0].Driver, strings.Repeat("h", 128) + "…(199,872 more bytes)"},
		{"error", f.Errors[0], strings.Repeat("h", 1024) + "…(198,976 more bytes)"},
		{"evidence", f.Evidence.OfflineCPUs, strings.Repeat("h", 1024) + "…(198,976 more bytes)"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d bytes %.80q…, want %d bytes %.80q…", c.what, len(c.got), c.got, len(c.want), c.want)
		}
	}
}
