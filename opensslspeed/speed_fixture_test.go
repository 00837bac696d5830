package opensslspeed

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// speedFixtureDir holds real `openssl speed` captures, copied from the project's shared fixtures with their
// provenance (testdata/captures/README.md). A missing fixture fails the test: no test reads outside the repository.
var speedFixtureDir = filepath.Join("testdata", "captures")

func readSpeedFixture(t testing.TB, prefix string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(speedFixtureDir, prefix+"_*.txt"))
	if err != nil || len(m) != 1 {
		t.Fatalf("fixture %s: want exactly one file, got %v (%v)", prefix, m, err)
	}
	b, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// speedCell is one measurement asserted from a fixture. rate is bytes/s for block > 0, ops/s otherwise.
type speedCell struct {
	run         int
	alg, op     string
	block, bits int
	curve       string
	rate        float64
	count, secs float64 // asserted when count > 0
	line        int     // asserted when > 0
	failed      bool
}

type speedRunWant struct {
	mode, timing, engine string
	threads, points      int
	failed               bool
}

type speedFixtureCase struct {
	file  string
	hint  []string // the command that produced a capture whose text does not show it (from its "# source" line)
	env   []string
	runs  []speedRunWant
	cells []speedCell
}

func speedFixtureCases() []speedFixtureCase {
	const wall, cpu = "wall", "cpu"
	return []speedFixtureCase{
		{file: "L01", hint: strings.Fields("openssl speed -elapsed -seconds 1 -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 529374.96e3, count: 33085935, secs: 1.00, line: 16},
				{alg: "aes-128-cbc", op: "encrypt", block: 256, rate: 1006898.95e3, count: 3972531, secs: 1.01},
				{alg: "aes-128-cbc", op: "encrypt", block: 16384, rate: 1043562.50e3, count: 63694, secs: 1.00},
			}},
		{file: "L02", hint: strings.Fields("openssl speed -elapsed -seconds 1 -mr -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 63926759 * 16 / 1.0, count: 63926759, secs: 1, line: 3},
				{alg: "aes-128-cbc", op: "encrypt", block: 16384, rate: 61098 * 16384 / 1.0, count: 61098, secs: 1, line: 13},
			}},
		{file: "L03", hint: strings.Fields("openssl speed -elapsed -seconds 1 -multi 2 -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 2, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 840003.49e3, line: 37},
				{alg: "aes-128-cbc", op: "encrypt", block: 16384, rate: 1025228.80e3},
			}},
		{file: "L04", hint: strings.Fields("openssl speed -elapsed -seconds 1 rsa2048"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 2}},
			cells: []speedCell{
				{alg: "rsa", op: "sign", bits: 2048, rate: 2239.0, count: 2239, secs: 1.00, line: 11},
				{alg: "rsa", op: "verify", bits: 2048, rate: 43776.0, count: 43776, secs: 1.00},
			}},
		{file: "L05", hint: strings.Fields("openssl speed -elapsed -seconds 1 ecdsap256"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 2}},
			cells: []speedCell{
				{alg: "ecdsa", op: "sign", bits: 256, curve: "nistp256", rate: 38446.0, count: 38446, secs: 1.00},
				{alg: "ecdsa", op: "verify", bits: 256, curve: "nistp256", rate: 11616.0, count: 11616, secs: 1.00},
			}},
		{file: "L06", hint: strings.Fields("openssl speed -seconds 1 sha256"),
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 6}},
			cells: []speedCell{
				// CPU-timed: openssl said 103704.21k (count/0.61 s of user time); the wall estimate is count/1 s.
				{alg: "sha256", op: "digest", block: 16, rate: 3953723 * 16 / 1.0, count: 3953723, secs: 0.61, line: 2},
				{alg: "sha256", op: "digest", block: 8192, rate: 113056 * 8192 / 1.0, count: 113056, secs: 0.64},
			}},
		{file: "L07", hint: strings.Fields("openssl speed nosuchalg"),
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 0, failed: true}}},
		{file: "L08", hint: strings.Fields("openssl speed -engine nosuchengine -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "engine:nosuchengine", timing: cpu, engine: "nosuchengine", threads: 1, points: 6, failed: true}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 120050786 * 16 / 3.0, count: 120050786, secs: 1.99, failed: true},
			}},
		{file: "L09", hint: strings.Fields("openssl speed -elapsed -seconds 1 aes-128-cbc hmac"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 12}},
			cells: []speedCell{
				{alg: "hmac-md5", op: "mac", block: 16, rate: 24473.85e3, count: 1544912, secs: 1.01, line: 22},
				{alg: "aes-128-cbc", op: "encrypt", block: 8192, rate: 965066.75e3, count: 117806, secs: 1.00, line: 23},
			}},
		{file: "L10", hint: strings.Fields("openssl speed -elapsed -seconds 1 -mr rsa2048 ed25519 ecdhp256"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 5}},
			cells: []speedCell{
				{alg: "rsa", op: "sign", bits: 2048, rate: 2536, count: 2536, secs: 1.00, line: 3},
				{alg: "ecdh", op: "derive", bits: 256, curve: "nistp256", rate: 22779, count: 22779, secs: 1.00, line: 7},
				{alg: "eddsa", op: "verify", bits: 253, curve: "ed25519", rate: 11889, count: 11889, secs: 1.00, line: 11},
			}},
		{file: "L11", hint: strings.Fields("openssl speed -elapsed -seconds 1 -multi 2 rsa2048"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 2, points: 2}},
			cells: []speedCell{
				{alg: "rsa", op: "sign", bits: 2048, rate: 3754.0, line: 20},
				{alg: "rsa", op: "verify", bits: 2048, rate: 58650.0},
			}},
		{file: "L12", hint: strings.Fields("openssl speed -elapsed -seconds 1 -multi 2 -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 2, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16384, rate: 2613002.24e3, line: 14},
			}},
		{file: "L13", hint: strings.Fields("openssl speed -seconds 1 -evp sha256"),
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 6}},
			cells: []speedCell{
				{alg: "sha256", op: "digest", block: 16, rate: 7005226 * 16 / 1.0, count: 7005226, secs: 0.98},
				{alg: "sha256", op: "digest", block: 16384, rate: 48239 * 16384 / 1.0, count: 48239, secs: 0.58},
			}},
		{file: "L14", hint: strings.Fields("openssl speed -elapsed -seconds 1 -bytes 1500 -misalign 3 -decrypt -evp aes-256-gcm"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 1}},
			cells: []speedCell{
				{alg: "aes-256-gcm", op: "decrypt", block: 1500, rate: 864985.50e3, count: 576657, secs: 1.00},
			}},
		{file: "L15", hint: strings.Fields("openssl speed -engine afalg -elapsed -seconds 1 -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "afalg", timing: wall, engine: "afalg", threads: 1, points: 6, failed: true}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 1018898.54e3, count: 63681159, secs: 1.00, failed: true},
			}},
		{file: "L16", hint: strings.Fields("env OPENSSL_armcap=0 openssl speed -provider default -elapsed -seconds 1 -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 1061991.78e3},
			}},
		{file: "L17", hint: strings.Fields("openssl speed -nosuchopt"),
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 0, failed: true}}},
		{file: "L18", hint: strings.Fields("openssl speed -evp nosuchcipher"),
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 0, failed: true}}},
		{file: "Q01", hint: strings.Fields("openssl speed -elapsed -seconds 1 -engine afalg -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "afalg", timing: wall, engine: "afalg", threads: 1, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 308.06e3, count: 19061, secs: 0.99, line: 10},
				{alg: "aes-128-cbc", op: "encrypt", block: 16384, rate: 36306.94e3, count: 2216, secs: 1.00},
			}},
		{file: "Q02", hint: strings.Fields("openssl speed -elapsed -seconds 1 -evp aes-128-cbc"), env: []string{"OPENSSL_armcap=0"},
			runs: []speedRunWant{{mode: "soft", timing: wall, threads: 1, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 33948.80e3, count: 2100582, secs: 0.99},
			}},
		{file: "Q03", hint: strings.Fields("openssl speed -elapsed -seconds 1 -mr -multi 2 -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 2, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 57872120.22, line: 9},
				{alg: "aes-128-cbc", op: "encrypt", block: 16384, rate: 91628898.85},
			}},
		{file: "Q04", hint: strings.Fields("openssl speed -elapsed -seconds 1 -multi 2 rsa2048"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 2, points: 2}},
			cells: []speedCell{
				{alg: "rsa", op: "sign", bits: 2048, rate: 396.0},
				{alg: "rsa", op: "verify", bits: 2048, rate: 19108.8},
			}},
		{file: "Q05", hint: strings.Fields("openssl speed -elapsed -seconds 1 -engine afalg -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "afalg", timing: wall, engine: "afalg", threads: 1, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 8192, rate: 28631.04e3, count: 3495, secs: 1.00},
			}},
		{file: "01",
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 25*5 + 4*2 + 3*2 + 16*2 + 16}},
			cells: []speedCell{
				{alg: "aes-256-cbc", op: "encrypt", block: 8192, rate: 12059.83e3, line: 26},
				{alg: "hmac-md5", op: "mac", block: 16, rate: 2724.28e3},
				{alg: "rsa", op: "sign", bits: 2048, rate: 13.6, line: 40},
				{alg: "ecdsa", op: "verify", bits: 160, curve: "secp160r1", rate: 169.5},
				{alg: "ecdh", op: "derive", bits: 571, curve: "nistk571", rate: 7.0, line: 74},
			}},
		{file: "03",
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 25*5 + 4*2 + 3*2 + 16*2 + 16}},
			cells: []speedCell{
				{alg: "ghash", op: "mac", block: 16, rate: 1555713.02e3},
				{alg: "camellia-128-cbc", op: "encrypt", block: 16, rate: 116319.99e3},
				{alg: "ecdsa", op: "verify", bits: 571, curve: "nistb571", rate: 294.6},
			}},
		{file: "05",
			runs: []speedRunWant{
				{mode: "afalg", timing: wall, engine: "afalg", threads: 1, points: 6},
				{mode: "cpu", timing: wall, threads: 1, points: 6},
			},
			cells: []speedCell{
				{run: 0, alg: "aes-256-cbc", op: "encrypt", block: 16384, rate: 17252.35e3, count: 3159, secs: 3.00, line: 22},
				{run: 1, alg: "aes-256-cbc", op: "encrypt", block: 16, rate: 5712.07e3, count: 1071013, secs: 3.00},
				{run: 1, alg: "aes-256-cbc", op: "encrypt", block: 16384, rate: 6983.61e3, count: 1283, secs: 3.01, line: 43},
			}},
		{file: "06",
			runs: []speedRunWant{
				{mode: "afalg", timing: wall, engine: "afalg", threads: 1, points: 6, failed: true},
				{mode: "afalg", timing: wall, engine: "afalg", threads: 1, points: 6},
			},
			cells: []speedCell{
				{run: 0, alg: "aes-128-cbc", op: "encrypt", block: 16384, rate: 11765405.01e3, count: 2154310, secs: 3.00, line: 45, failed: true},
				{run: 1, alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 159.16e3, count: 29843, secs: 3.00},
				{run: 1, alg: "aes-128-cbc", op: "encrypt", block: 8192, rate: 30378.67e3, count: 11125, secs: 3.00, line: 85},
			}},
		{file: "07", hint: strings.Fields("openssl speed -mr -evp aes-128-cbc"),
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 5}},
			cells: []speedCell{
				{alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 135704772 * 16 / 3.0, count: 135704772, secs: 2.98},
				{alg: "aes-128-cbc", op: "encrypt", block: 8192, rate: 294508 * 8192 / 3.0, count: 294508, secs: 2.99},
			}},
		{file: "09", hint: strings.Fields("openssl speed -multi 12 -seconds 5 -evp aes-128-gcm"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 12, points: 6}},
			cells: []speedCell{
				{alg: "aes-128-gcm", op: "encrypt", block: 16, rate: 1351685.18e3},
				{alg: "aes-128-gcm", op: "encrypt", block: 16384, rate: 80628904.76e3, line: 7},
			}},
		{file: "10",
			runs: []speedRunWant{
				{mode: "cpu", timing: cpu, threads: 1, points: 0, failed: true},
				{mode: "cpu", timing: cpu, threads: 1, points: 2},
			},
			cells: []speedCell{
				// openssl said 123.8 sign/s on 9.25 s of user time; on the nominal 10 s it is 114.5
				{run: 1, alg: "rsa", op: "sign", bits: 4096, rate: 1145 / 10.0, count: 1145, secs: 9.25},
				{run: 1, alg: "rsa", op: "verify", bits: 4096, rate: 75678 / 10.0, count: 75678, secs: 9.23},
			}},
		{file: "11",
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 8}},
			cells: []speedCell{
				{alg: "rsa", op: "sign", bits: 1024, rate: 91211 / 10.0, count: 91211, secs: 9.97},
				{alg: "dsa", op: "verify", bits: 2048, rate: 33202 / 10.0, count: 33202, secs: 9.98},
			}},
		{file: "12",
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 8}},
			cells: []speedCell{
				{alg: "rsa", op: "verify", bits: 512, rate: 1776110 / 10.0, count: 1776110, secs: 9.88},
			}},
		{file: "13",
			runs: []speedRunWant{{mode: "cpu", timing: cpu, threads: 1, points: 2}},
			cells: []speedCell{
				{alg: "rsa", op: "sign", bits: 2048, rate: 14561 / 10.0, count: 14561, secs: 10.00},
			}},
		{file: "14",
			runs: []speedRunWant{
				{mode: "cpu", timing: cpu, threads: 1, points: 6},
				{mode: "cpu", timing: cpu, threads: 1, points: 10},
			},
			cells: []speedCell{
				{run: 0, alg: "sha256", op: "digest", block: 16384, rate: 623656 * 16384 / 3.0, count: 623656, secs: 2.98},
				{run: 1, alg: "rsa", op: "encrypt", bits: 2048, rate: 1147580 / 10.0, count: 1147580, secs: 9.96},
				{run: 1, alg: "rsa", op: "decrypt", bits: 2048, rate: 29484 / 10.0, count: 29484, secs: 9.83},
				{run: 1, alg: "rsa-kem", op: "encaps", bits: 2048, rate: 1057711 / 10.0, count: 1057711, secs: 9.95},
				{run: 1, alg: "rsa-sig", op: "keygen", bits: 2048, rate: 384 / 10.0, count: 384, secs: 9.92},
			}},
		{file: "16", hint: strings.Fields("openssl speed -elapsed -evp aes-128-gcm aes-128-cbc sha256"),
			runs: []speedRunWant{{mode: "cpu", timing: wall, threads: 1, points: 18}},
			cells: []speedCell{
				{alg: "sha256", op: "digest", block: 16, rate: 9222.94e3, count: 1729302, secs: 3.00},
				{alg: "aes-128-cbc", op: "encrypt", block: 1024, rate: 856342.87e3},
				{alg: "aes-128-gcm", op: "encrypt", block: 16384, rate: 620948.14e3, count: 113699, secs: 3.00, line: 31},
			}},
		{file: "17",
			runs: []speedRunWant{
				{mode: "devcrypto", timing: cpu, engine: "devcrypto", threads: 1, points: 5},
				{mode: "devcrypto", timing: cpu, engine: "devcrypto", threads: 1, points: 5},
				{mode: "cpu", timing: cpu, threads: 1, points: 5},
			},
			cells: []speedCell{
				// openssl's 1998438.40k (2 GB/s) is 4879 blocks / 0.02 s of user time; on 3 s wall it is 13 MB/s
				{run: 0, alg: "aes-128-cbc", op: "encrypt", block: 8192, rate: 4879 * 8192 / 3.0, count: 4879, secs: 0.02},
				{run: 1, alg: "aes-128-cbc", op: "encrypt", block: 16, rate: 108799 * 16 / 3.0, count: 108799, secs: 0.17},
				{run: 2, alg: "aes-128-cbc", op: "encrypt", block: 8192, rate: 1509 * 8192 / 3.0, count: 1509, secs: 3.00},
			}},
		{file: "19",
			runs: []speedRunWant{{mode: "engine:kae", timing: wall, engine: "kae", threads: 1, points: 2}},
			cells: []speedCell{
				{alg: "rsa", op: "sign", bits: 2048, rate: 3183.5, count: 31835, secs: 10.00},
			}},
		{file: "20",
			runs: []speedRunWant{
				{mode: "cpu", timing: cpu, threads: 1, points: 2},
				{mode: "cpu", timing: cpu, threads: 1, points: 6},
			},
			cells: []speedCell{
				{run: 0, alg: "rsa", op: "sign", bits: 2048, rate: 3608 / 10.0, count: 3608, secs: 9.99},
				// 3.05 s of CPU time in a 3 s alarm: the wall time was at least 3.05 s
				{run: 1, alg: "sha256", op: "digest", block: 8192, rate: 181820 * 8192 / 3.05, count: 181820, secs: 3.05},
			}},
		{file: "S00",
			runs: []speedRunWant{
				{mode: "cpu", timing: cpu, threads: 1, points: 5},
				{mode: "devcrypto", timing: cpu, engine: "cryptodev", threads: 1, points: 5},
			},
			cells: []speedCell{
				{run: 0, alg: "aes-256-cbc", op: "encrypt", block: 8192, rate: 3029 * 8192 / 3.0, count: 3029, secs: 3.00, line: 7},
				// a CPU-timed accelerator is read on the wall: 2015232.00k on 0.01 s of CPU time is ≈ 6.7 MB/s
				{run: 1, alg: "aes-256-cbc", op: "encrypt", block: 8192, rate: 6717440, count: 2460, secs: 0.01, line: 52},
			}},
	}
}

func TestParseSpeedFixtures(t *testing.T) {
	for _, tc := range speedFixtureCases() {
		t.Run(tc.file, func(t *testing.T) {
			text := readSpeedFixture(t, tc.file)
			runs, err := Parse(text, Hint{Command: tc.hint, Env: tc.env})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got, want := len(runs), len(tc.runs); got != want {
				t.Fatalf("runs = %d, want %d: %+v", got, want, runs)
			}
			for i, w := range tc.runs {
				r := runs[i]
				if got := r.Mode; got != w.mode {
					t.Errorf("run %d: mode = %q, want %q", i, got, w.mode)
				}
				if got := r.Timing; got != w.timing {
					t.Errorf("run %d: timing = %q, want %q", i, got, w.timing)
				}
				if got := r.Engine; got != w.engine {
					t.Errorf("run %d: engine = %q, want %q", i, got, w.engine)
				}
				if got := r.Threads; got != w.threads {
					t.Errorf("run %d: threads = %d, want %d", i, got, w.threads)
				}
				if got := len(r.Points); got != w.points {
					t.Errorf("run %d: %d points, want %d", i, got, w.points)
				}
				if got := r.Failed != ""; got != w.failed {
					t.Errorf("run %d: failed = %q, want failed %v", i, r.Failed, w.failed)
				}
				for _, p := range r.Points {
					checkSpeedPoint(t, p)
					if p.Failed != (r.Failed != "") && p.Error == "" {
						t.Errorf("run %d: point %s/%d failed=%v without error", i, p.Algorithm, p.BlockSize, p.Failed)
					}
					if p.Mode != r.Mode || p.Timing != r.Timing || p.Threads != r.Threads || p.Engine != r.Engine {
						t.Errorf("run %d: point %+v does not carry the run's mode/timing/threads/engine", i, p)
					}
				}
			}
			for _, c := range tc.cells {
				p, ok := findSpeedPoint(runs[c.run].Points, c)
				if !ok {
					t.Errorf("run %d: no point %s %s block %d bits %d curve %q", c.run, c.alg, c.op, c.block, c.bits, c.curve)
					continue
				}
				got := p.BytesPerSec
				if c.block == 0 {
					got = p.OpsPerSec
				}
				if !speedClose(got, c.rate) {
					t.Errorf("run %d: %s %s %d/%d: rate = %.4f, want %.4f", c.run, c.alg, c.op, c.block, c.bits, got, c.rate)
				}
				if c.count > 0 && (p.Count != c.count || p.Seconds != c.secs) {
					t.Errorf("run %d: %s %d: count, seconds = %v, %v, want %v, %v", c.run, c.alg, c.block, p.Count, p.Seconds, c.count, c.secs)
				}
				if c.line > 0 && p.Line != c.line {
					t.Errorf("run %d: %s %d: line = %d, want %d", c.run, c.alg, c.block, p.Line, c.line)
				}
				if p.Failed != c.failed {
					t.Errorf("run %d: %s %d: failed = %v (%s), want %v", c.run, c.alg, c.block, p.Failed, p.Error, c.failed)
				}
			}
		})
	}
}

func findSpeedPoint(pts []protocol.Point, c speedCell) (protocol.Point, bool) {
	for _, p := range pts {
		if p.Algorithm == c.alg && p.Op == c.op && p.BlockSize == c.block && p.KeyBits == c.bits && p.Curve == c.curve {
			return p, true
		}
	}
	return protocol.Point{}, false
}

func speedClose(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-9
}

// checkSpeedPoint asserts what every parsed point must satisfy, whatever the input.
func checkSpeedPoint(t testing.TB, p protocol.Point) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Errorf("invalid point: %v (%+v)", err, p)
	}
	if p.Timing != "wall" && p.Timing != "cpu" {
		t.Errorf("point timing %q", p.Timing)
	}
	if !p.Failed && p.BytesPerSec == 0 && p.OpsPerSec == 0 {
		t.Errorf("point without a rate and not failed: %+v", p)
	}
	if p.BlockSize > 0 && p.OpsPerSec != 0 || p.BlockSize == 0 && p.BytesPerSec != 0 {
		t.Errorf("point rate in the wrong unit: %+v", p)
	}
}
