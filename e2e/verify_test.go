package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// verifySweep is short: 2 modes × 2 algorithms × 1 size × 1 s (the verification covers its edge sizes anyway),
// and a signature algorithm of each kind the signature check covers.
var verifySweep = []string{"--seconds", "1", "--algorithms", "aes-128-cbc,sha256," + strings.Join(signatureAlgs, ","), "--sizes", "16", "--modes", "soft,cpu"}

// signatureAlgs are signed and verified through the path, and checked with the controller's crypto.
var signatureAlgs = []string{"rsa2048", "ecdsap256", "ed25519", "ed448"}

// anyValidity keeps the points of a busy test machine valid: these tests are about the outputs, not the speed.
const anyValidity = "validity = { background_peak_pct = 100, background_avg_pct = 100 }\n"

type verifiedPoint struct {
	Mode      string `json:"mode"`
	Algorithm string `json:"algorithm"`
	Op        string `json:"op"`
	BlockSize int    `json:"block_size"`
	Verdict   string `json:"verification"`
	Detail    string `json:"verification_detail"`
}

func (w *world) verifiedPoints(t *testing.T) []verifiedPoint {
	t.Helper()
	res := w.fleet("results", "--run", "latest", "--format", "json")
	if res.code != 0 {
		t.Fatalf("results:\n%s", res)
	}
	var ps []verifiedPoint
	if err := json.Unmarshal([]byte(res.stdout), &ps); err != nil {
		t.Fatalf("results --format json: %v\n%s", err, res.stdout)
	}
	return ps
}

// TestVerifyLocalWrongOutput is the negative path with a real corrupting process: the local board's openssl is
// a wrapper (testdata/openssl-corrupt) that passes speed through and flips the last byte of every other enc or
// dgst result and of every signature. A run with the real openssl verifies ok, rsa, ecdsa and eddsa included; the run with the wrapper exits 3 naming board, mode,
// algorithm and size, stores its points marked wrong, and regress against the good run fails them as "wrong
// output" (a JUnit failure) although the speed did not drop.
func TestVerifyLocalWrongOutput(t *testing.T) {
	longCase(t)
	needOpenSSL(t)
	w := newWorld(t)
	w.writeInventory("[boards.local]\n" + anyValidity)
	good := w.fleet(append([]string{"run", "--boards", "local", "--label", "nightly"}, verifySweep...)...)
	if good.code != 0 {
		t.Fatalf("run with the real openssl:\n%s", good)
	}
	signed := 0
	for _, p := range w.verifiedPoints(t) {
		if p.Verdict != protocol.VerificationOK {
			t.Errorf("real openssl: %s %s %s %d: %s %q, want ok", p.Mode, p.Algorithm, p.Op, p.BlockSize, p.Verdict, p.Detail)
		}
		if p.Algorithm == "rsa" || p.Algorithm == "ecdsa" || p.Algorithm == "eddsa" {
			signed++
		}
	}
	if want := 2 * 2 * len(signatureAlgs); signed != want { // modes × sign and verify × algorithms
		t.Errorf("real openssl: %d rsa, ecdsa and eddsa points, want %d", signed, want)
	}

	bin := filepath.Join(t.TempDir(), "openssl-corrupt")
	script, err := os.ReadFile("testdata/openssl-corrupt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, script, 0o755); err != nil {
		t.Fatal(err)
	}
	w.writeInventory("[boards.local]\nopenssl = \"" + bin + "\"\n" + anyValidity)
	bad := w.fleet(append([]string{"run", "--boards", "local", "--label", "nightly"}, verifySweep...)...)
	if bad.code != 3 {
		t.Fatalf("run with the corrupting openssl: exit %d, want 3\n%s", bad.code, bad)
	}
	named := regexp.MustCompile(`(?s)local.*wrong output: (soft|cpu) (aes-128-cbc|sha256|` + strings.Join(signatureAlgs, "|") + `): \w+ \d+ B`)
	if !named.MatchString(bad.stderr) {
		t.Errorf("the run's output does not name board, mode, algorithm and size of the wrong output:\n%s", bad.stderr)
	}
	wrong := 0
	for _, p := range w.verifiedPoints(t) {
		if (p.Algorithm == "rsa" || p.Algorithm == "ecdsa" || p.Algorithm == "eddsa") && (p.Verdict != protocol.VerificationWrong || !strings.HasPrefix(p.Detail, "sign ")) {
			t.Errorf("corrupted signature: %s %s %s: %s %q, want wrong, naming the sign case", p.Mode, p.Algorithm, p.Op, p.Verdict, p.Detail)
		}
		if p.Verdict == protocol.VerificationWrong {
			wrong++
			if !strings.Contains(p.Detail, " B") || !strings.Contains(p.Detail, "byte") && !strings.Contains(p.Detail, "bytes") {
				t.Errorf("%s %s %d: detail %q names no size or byte", p.Mode, p.Algorithm, p.BlockSize, p.Detail)
			}
		}
	}
	if wrong == 0 {
		t.Errorf("no point of the corrupted run is marked wrong")
	}

	junit := filepath.Join(w.dir, "regress.xml")
	reg := w.fleet("regress", "--baseline", "nightly", "--junit", junit)
	if reg.code == 0 || reg.code == 4 {
		t.Fatalf("regress of the wrong run: exit %d, want a failure\n%s", reg.code, reg)
	}
	if !strings.Contains(reg.stdout, "wrong output") {
		t.Errorf("regress does not say wrong output:\n%s", reg.stdout)
	}
	x, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`<failure message="[^"]*wrong output`).Match(x) {
		t.Errorf("JUnit has no wrong-output failure:\n%s", x)
	}
	show := w.fleet("show", "latest")
	if !strings.Contains(show.stdout+show.stderr, "wrong output") {
		t.Errorf("show does not say wrong output:\n%s", show)
	}
	cmp := w.fleet("compare", "--run", "latest")
	if !strings.Contains(cmp.stdout+cmp.stderr, "wrong output") {
		t.Errorf("compare does not say wrong output:\n%s", cmp)
	}
}

// TestVerifyLocalWrongAtOneSize: an openssl wrong only for an 8192-byte input (testdata/openssl-corrupt-8192,
// right at 65536 B) fails a run that measures 8192 B: exit 3, naming the mode, algorithm and size. A
// verification that took the 8192 B output from the prefix of the 65536 B run said ok.
func TestVerifyLocalWrongAtOneSize(t *testing.T) {
	needOpenSSL(t)
	w := newWorld(t)
	bin := filepath.Join(t.TempDir(), "openssl-corrupt-8192")
	script, err := os.ReadFile("testdata/openssl-corrupt-8192")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, script, 0o755); err != nil {
		t.Fatal(err)
	}
	w.writeInventory("[boards.local]\nopenssl = \"" + bin + "\"\n" + anyValidity)
	bad := w.fleet("run", "--boards", "local", "--seconds", "1", "--algorithms", "aes-128-cbc", "--sizes", "8192", "--modes", "cpu")
	if bad.code != 3 {
		t.Fatalf("run with an openssl wrong at 8192 B: exit %d, want 3\n%s", bad.code, bad)
	}
	if !strings.Contains(bad.stderr, "local: wrong output: cpu aes-128-cbc: encrypt 8192 B in requests of 4096 B: ") {
		t.Errorf("the run's output does not name the 8192 B input:\n%s", bad.stderr)
	}
}
