package opensslspeed

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

func TestSpeedCommandLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string // nil: not a command line
	}{
		{"openssl speed rsa2048", []string{"openssl", "speed", "rsa2048"}},
		{"$ openssl speed rsa1024 rsa2048", []string{"openssl", "speed", "rsa1024", "rsa2048"}},
		{"root@am335x-evm:~# time -v openssl speed -evp aes-256-cbc -engine cryptodev",
			[]string{"time", "-v", "openssl", "speed", "-evp", "aes-256-cbc", "-engine", "cryptodev"}},
		{"[root@localhost ~]# openssl speed rsa4096       #指定一种加密算法进行测试", []string{"openssl", "speed", "rsa4096"}},
		{"# openssl speed -evp aes-128-cbc -elapsed -engine afalg",
			[]string{"openssl", "speed", "-evp", "aes-128-cbc", "-elapsed", "-engine", "afalg"}},
		{"env OPENSSL_armcap=0 /usr/bin/openssl speed -elapsed -evp sha256 2>&1 | tee x",
			[]string{"env", "OPENSSL_armcap=0", "openssl", "speed", "-elapsed", "-evp", "sha256"}},
		{"openssl speed", []string{"openssl", "speed"}},
		{`Command being timed: "openssl speed -evp aes-128-cbc"`, nil},
		{"# source: local, OpenSSL 3.0.19; command: openssl speed -elapsed -seconds 1 rsa2048", nil},
		{"I ran openssl speed on the board", nil},
		{"root@evm:~# modprobe -r cryptodev", nil},
	} {
		if got := speedCommandLine(tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("speedCommandLine(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestSpeedCmdMode(t *testing.T) {
	for _, tc := range []struct {
		argv   string
		env    []string
		cpuCap string
		want   string
	}{
		{"openssl speed -elapsed -evp aes-128-cbc", nil, "", ""},
		{"openssl speed -engine devcrypto -evp aes-128-cbc", nil, "", "devcrypto"},
		{"openssl speed -engine cryptodev -evp aes-128-cbc", nil, "", "devcrypto"},
		{"openssl speed -engine af_alg -evp aes-128-cbc", nil, "", "afalg"},
		{"openssl speed -engine afalg -evp aes-128-cbc", nil, "", "afalg"},
		{"openssl speed -engine kae rsa2048", nil, "", "engine:kae"},
		{"openssl speed -provider legacy -evp bf-cbc", nil, "", "provider:legacy"},
		{"openssl speed -provider default -evp aes-128-cbc", nil, "", ""},
		{"OPENSSL_armcap=0 openssl speed -evp aes-128-cbc", nil, "OPENSSL_armcap", "soft"},
		{"openssl speed -evp aes-128-cbc", []string{"OPENSSL_armcap=0"}, "", "soft"},
		{"openssl speed -evp aes-128-cbc", []string{"OPENSSL_ia32cap=" + IA32CapSoftMask}, "OPENSSL_ia32cap", "soft"},
		// ":~0x0" keeps SHA, VAES and VPCLMULQDQ on: a partial mask, mode cpu
		{"openssl speed -evp aes-128-cbc", []string{"OPENSSL_ia32cap=~0x200000200000000:~0x0"}, "OPENSSL_ia32cap", ""},
		{"env OPENSSL_armcap=0 openssl speed -evp aes-128-cbc", nil, "OPENSSL_ia32cap", ""},
		{"openssl speed -evp aes-128-cbc", []string{"OPENSSL_armcap=0x3d"}, "", ""},
	} {
		c := parseSpeedCmd(strings.Fields(tc.argv), tc.env)
		if got, _, _ := c.mode(tc.cpuCap); got != tc.want {
			t.Errorf("mode of %q env %q cpu %q = %q, want %q", tc.argv, tc.env, tc.cpuCap, got, tc.want)
		}
	}
	c := parseSpeedCmd(strings.Fields("openssl speed -elapsed -seconds 2 -multi 4 -bytes 1500 -decrypt -mr -evp aes-256-gcm rsa2048"), nil)
	if !c.elapsed || c.seconds != 2 || c.multi != 4 || c.bytes != 1500 || !c.decrypt || !c.mr || c.evp != "aes-256-gcm" ||
		!slices.Equal(c.algs, []string{"rsa2048"}) {
		t.Errorf("parseSpeedCmd = %+v", c)
	}
}

// speedOne parses text and returns its only run.
func speedOne(t *testing.T, text string, hint Hint) Run {
	t.Helper()
	runs, err := Parse(text, hint)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1: %+v", len(runs), runs)
	}
	for _, p := range runs[0].Points {
		checkSpeedPoint(t, p)
	}
	return runs[0]
}

func TestParseSpeedZeroSeconds(t *testing.T) {
	const text = "Doing aes-128-cbc for 3s on 16 size blocks: 5 aes-128-cbc's in 0.00s\n"
	// timed on the wall clock, 0.00 s means nothing can be said
	r := speedOne(t, text, Hint{Command: strings.Fields("openssl speed -elapsed -evp aes-128-cbc")})
	if p := r.Points[0]; !p.Failed || p.Error == "" || p.BytesPerSec != 0 || p.Count != 5 {
		t.Errorf("wall 0.00s point = %+v, want failed with count 5 and no rate", p)
	}
	// timed on CPU, the count over the nominal 3 s is still a wall estimate, flagged
	r = speedOne(t, text, Hint{Command: strings.Fields("openssl speed -evp aes-128-cbc")})
	p := r.Points[0]
	if got, want := p.BytesPerSec, 5*16/3.0; p.Failed || !speedClose(got, want) || p.WallEst != 3 {
		t.Errorf("cpu 0.00s point = %+v, want %v B/s on 3 s", p, want)
	}
	if !slices.ContainsFunc(p.Flags, func(f string) bool { return strings.HasPrefix(f, "zero-seconds") }) {
		t.Errorf("flags %q lack zero-seconds", p.Flags)
	}
}

func TestParseSpeedNotFound(t *testing.T) {
	for _, text := range []string{"", "hello\nworld\n", "version: 3.0.19\nbuilt on: today\n"} {
		if runs, err := Parse(text, Hint{}); !errors.Is(err, ErrNotFound) || runs != nil {
			t.Errorf("Parse(%q) = %v, %v, want ErrNotFound", text, runs, err)
		}
	}
}

// Real output of OpenSSL 3.0.19 on this project's build machine (x86_64), `openssl speed -elapsed -seconds 1
// dsa2048 ffdh2048 sm2 ecdhx25519` and the same with -mr: tables the fixtures do not have.
const speedLiveAsym = `You have chosen to measure elapsed time instead of user CPU time.
Doing 2048 bits sign dsa's for 1s: 2276 2048 bits DSA signs in 1.01s
Doing 2048 bits verify dsa's for 1s: 2268 2048 bits DSA verify in 1.00s
Doing 253 bits  ecdh's for 1s: 13231 253-bits ECDH ops in 1.01s
Doing 256 bits sign CurveSM2's for 1s: 1441 256 bits CurveSM2 signs in 1.00s 
Doing 256 bits verify CurveSM2's for 1s: 2101 256 bits CurveSM2 verify in 1.00s
Doing 2048 bits  ffdh's for 1s: 2260 2048-bits FFDH ops in 1.01s
version: 3.0.19
built on: Fri Apr  3 12:29:32 2026 UTC
options: bn(64,64)
CPUINFO: OPENSSL_ia32cap=0xfffa3203078bffff:0x405fc6f1bf07ab
                  sign    verify    sign/s verify/s
dsa 2048 bits 0.000444s 0.000441s   2253.5   2268.0
                              op      op/s
 253 bits ecdh (X25519)   0.0001s  13100.0
                              sign    verify    sign/s verify/s
 256 bits SM2 (CurveSM2)   0.0007s   0.0005s   1441.0   2101.0
                       op     op/s
2048 bits ffdh   0.0004s   2237.6
`

const speedLiveAsymMR = `+DTP:2048:sign:dsa:1
+R3:1950:2048:1.01
+DTP:2048:verify:dsa:1
+R4:2226:2048:1.00
+DTP:253::ecdh:1
+R7:15882:253:1.00
+DTP:256:sign:CurveSM2:1
+R10:1158:256:CurveSM2:1.00
+DTP:256:verify:CurveSM2:1
+R11:1102:256:CurveSM2:1.00
+DTP:2048::ffdh:1
+R12:1362:2048:1.00
+F3:2:2048:1930.693069:2226.000000
+F5:22:253:15882.000000:0.000063
+F7:0:256:CurveSM2:1158.000000:1102.000000
+F8:0:2048:1362.000000:0.000734
`

func TestParseSpeedAsymTables(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		hint       []string
		want       []speedCell
	}{
		{"human", speedLiveAsym, nil, []speedCell{
			{alg: "dsa", op: "sign", bits: 2048, rate: 2253.5, count: 2276, secs: 1.01, line: 13},
			{alg: "ecdh", op: "derive", bits: 253, curve: "x25519", rate: 13100.0, count: 13231, secs: 1.01, line: 15},
			{alg: "sm2", op: "verify", bits: 256, curve: "sm2", rate: 2101.0, count: 2101, secs: 1.00},
			{alg: "ffdh", op: "derive", bits: 2048, rate: 2237.6, count: 2260, secs: 1.01, line: 19},
		}},
		{"mr", speedLiveAsymMR, strings.Fields("openssl speed -elapsed -seconds 1 -mr dsa2048 ffdh2048 sm2 ecdhx25519"), []speedCell{
			{alg: "dsa", op: "sign", bits: 2048, rate: 1950 / 1.01, count: 1950, secs: 1.01, line: 2},
			{alg: "ecdh", op: "derive", bits: 253, curve: "x25519", rate: 15882, count: 15882, secs: 1.00, line: 6},
			{alg: "sm2", op: "sign", bits: 256, curve: "sm2", rate: 1158, count: 1158, secs: 1.00},
			{alg: "ffdh", op: "derive", bits: 2048, rate: 1362, count: 1362, secs: 1.00},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := speedOne(t, tc.text, Hint{Command: tc.hint})
			if got, want := len(r.Points), 6; got != want {
				t.Errorf("%d points, want %d", got, want)
			}
			if got, want := r.Timing, "wall"; got != want {
				t.Errorf("timing = %q, want %q", got, want)
			}
			for _, c := range tc.want {
				p, ok := findSpeedPoint(r.Points, c)
				if !ok {
					t.Errorf("no point %+v in %+v", c, r.Points)
					continue
				}
				if !speedClose(p.OpsPerSec, c.rate) || p.Count != c.count || p.Seconds != c.secs || (c.line > 0 && p.Line != c.line) {
					t.Errorf("%s %s: ops/s %v count %v secs %v line %d, want %v %v %v %d", c.alg, c.op, p.OpsPerSec, p.Count, p.Seconds, p.Line, c.rate, c.count, c.secs, c.line)
				}
			}
		})
	}
}

func TestParseSpeedMRUnits(t *testing.T) {
	// OpenSSL 1.0.x printed seconds per operation in +F2..+F4 and (seconds, ops/s) in +F5; from 1.1.1 ops/s.
	const text = "+F2:2:2048:0.000500:0.000025\n+F5:3:256:0.000200:5000.000000\n"
	for _, tc := range []struct {
		version                   string
		sign, verify, derive      float64
		guessedSign, guessedNotes bool
	}{
		{"1.0.2k", 2000, 40000, 5000, false, false},
		{"", 2000, 40000, 5000, true, true},
	} {
		r := speedOne(t, text, Hint{Version: tc.version})
		for _, c := range []speedCell{
			{alg: "rsa", op: "sign", bits: 2048, rate: tc.sign},
			{alg: "rsa", op: "verify", bits: 2048, rate: tc.verify},
			{alg: "ecdh", op: "derive", bits: 256, curve: "nistp256", rate: tc.derive},
		} {
			p, ok := findSpeedPoint(r.Points, c)
			if !ok || !speedClose(p.OpsPerSec, c.rate) {
				t.Errorf("version %q: %s %s = %+v, want %v ops/s", tc.version, c.alg, c.op, p, c.rate)
			}
			guessed := slices.ContainsFunc(p.Flags, func(f string) bool { return strings.HasPrefix(f, "mr-units-guessed") })
			if c.alg == "rsa" && guessed != tc.guessedSign {
				t.Errorf("version %q: %s %s flags %q, want guessed %v", tc.version, c.alg, c.op, p.Flags, tc.guessedSign)
			}
		}
	}
	// 1.1.1+: ops/s as printed
	r := speedOne(t, "+F2:2:2048:2536.000000:44824.000000\n", Hint{Version: "3.0.19"})
	if p, ok := findSpeedPoint(r.Points, speedCell{alg: "rsa", op: "sign", bits: 2048}); !ok || p.OpsPerSec != 2536 {
		t.Errorf("3.0 +F2 sign = %+v, want 2536 ops/s", p)
	}
}

func TestParseSpeedEVPLabel(t *testing.T) {
	// 1.1.1 -multi labels the -evp row "evp"; the command line names it.
	const text = "Forked child 0\nForked child 1\nGot: +H:16:64 from 0\nGot: +F:22:evp:100.00:200.00 from 0\n" +
		"Got: +H:16:64 from 1\nGot: +F:22:evp:300.00:400.00 from 1\nevp                 0.40k        0.60k\n"
	r := speedOne(t, text, Hint{Command: strings.Fields("openssl speed -multi 2 -evp AES-256-CBC")})
	if got, want := len(r.Points), 2; got != want {
		t.Fatalf("%d points, want %d: %+v", got, want, r.Points)
	}
	p := r.Points[1]
	if p.Algorithm != "aes-256-cbc" || p.BlockSize != 64 || p.BytesPerSec != 600 || p.Threads != 2 || p.Line != 7 {
		t.Errorf("evp point = %+v, want aes-256-cbc 64 B at 600 B/s, 2 threads, line 7", p)
	}
	// without the parent's row, the children's rates are summed and flagged
	r = speedOne(t, strings.Join(strings.Split(text, "\n")[:6], "\n"), Hint{Command: strings.Fields("openssl speed -multi 2 -evp aes-256-cbc")})
	if p := r.Points[0]; p.BytesPerSec != 400 || !slices.ContainsFunc(p.Flags, func(f string) bool { return strings.Contains(f, "sum of 2 children") }) {
		t.Errorf("summed point = %+v, want 400 B/s flagged", p)
	}
}

func TestParseSpeedPastedLog(t *testing.T) {
	// an email quoting two runs, with prose, a prompt, a glued value and a wrapped result
	const text = `Hi all,
> here is the software run:
> $ openssl speed -elapsed -evp aes-128-cbc
> You have chosen to measure elapsed time instead of user CPU time.
> Doing aes-128-cbc for 3s on 16 size blocks: 300 aes-128-cbc's in 3.00s
> Doing aes-128-cbc for 3s on 64 size blocks:
> 200 aes-128-cbc's in 3.00s
> The 'numbers' are in 1000s of bytes per second processed.
> type             16 bytes     64 bytes
> aes-128-cbc          1.60k        4.27k
and with the engine:
> # openssl speed -elapsed -engine cryptodev -evp aes-128-cbc
> engine "cryptodev" set.
> Doing aes-128-cbc for 3s on 16 size blocks: 3000 aes-128-cbc's in 3.00s
> type             16 bytes     64 bytes
> aes-128-cbc16.00k        0.00
thanks
`
	runs, err := Parse(text, Hint{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(runs), 2; got != want {
		t.Fatalf("%d runs, want %d", got, want)
	}
	sw, hw := runs[0], runs[1]
	if sw.Line != 3 || sw.Mode != "cpu" || sw.Timing != "wall" || len(sw.Points) != 2 {
		t.Errorf("software run = line %d mode %q timing %q %d points", sw.Line, sw.Mode, sw.Timing, len(sw.Points))
	}
	if p := sw.Points[1]; p.BlockSize != 64 || p.BytesPerSec != 4270 || p.Count != 200 || p.Line != 10 {
		t.Errorf("software 64 B = %+v", p)
	}
	if hw.Line != 12 || hw.Mode != "devcrypto" || hw.Engine != "cryptodev" || len(hw.Points) != 1 {
		t.Errorf("engine run = line %d mode %q engine %q %d points", hw.Line, hw.Mode, hw.Engine, len(hw.Points))
	}
	if p := hw.Points[0]; p.BlockSize != 16 || p.BytesPerSec != 16000 || p.Count != 3000 {
		t.Errorf("engine 16 B = %+v (the 64 B cell is 0.00: no point)", p)
	}
	if len(hw.Warnings) == 0 {
		t.Error("engine run: no warning about the 0.00 cell")
	}
}

func TestParseSpeedTimeV(t *testing.T) {
	text := readSpeedFixture(t, "S00")
	runs, err := Parse(text, Hint{})
	if err != nil {
		t.Fatal(err)
	}
	p := runs[1].Points[4]
	if p.WallS != 15.05 || p.UserS != 0.32 || p.SysS != 12.40 || !speedClose(p.CPUPct, (0.32+12.40)/15.05*100) {
		t.Errorf("time -v accounting = wall %v user %v sys %v cpu %v", p.WallS, p.UserS, p.SysS, p.CPUPct)
	}
	if !slices.ContainsFunc(p.Flags, func(f string) bool { return strings.HasPrefix(f, "cpu-timed: openssl reported 2015232000 B/s") }) {
		t.Errorf("flags %q do not keep openssl's CPU-time figure", p.Flags)
	}
}

func TestSpeedParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{{"15.01", 15.01}, {"0m 15.05s", 15.05}, {"0:15.07", 15.07}, {"1:02:03", 3723}} {
		if got, ok := speedParseDuration(tc.in); !ok || !speedClose(got, tc.want) {
			t.Errorf("speedParseDuration(%q) = %v, %v, want %v", tc.in, got, ok, tc.want)
		}
	}
	if _, ok := speedParseDuration("soon"); ok {
		t.Error(`speedParseDuration("soon") ok`)
	}
}

// TestParseSpeedSweepOutput parses real OpenSSL 3.0.19 output of the commands the sweep runner builds, given as
// it gives it: stderr, a newline, stdout, with the argv as hint.
func TestParseSpeedSweepOutput(t *testing.T) {
	for _, tc := range []struct {
		name, stderr, stdout string
		argv                 string
		threads              int
		want                 []speedCell
	}{
		{"evp", "+DT:AES-128-CBC:1:64\n+R:7315666:AES-128-CBC:1.000000\n", "+H:64\n+F:25:AES-128-CBC:468202624.00\n",
			"openssl speed -elapsed -mr -seconds 1 -bytes 64 -evp aes-128-cbc", 1,
			[]speedCell{{alg: "aes-128-cbc", op: "encrypt", block: 64, rate: 7315666 * 64 / 1.0, count: 7315666, secs: 1, line: 2}}},
		{"multi digest",
			"+DT:sha256:1:1024\n+DT:sha256:1:1024\n+R:163920:sha256:1.010000\n+R:130101:sha256:1.020000\n",
			"Forked child 0\nForked child 1\nGot: +H:1024 from 0\nGot: +F:25:sha256:130611200.00 from 0\n" +
				"Got: +H:1024 from 1\nGot: +F:25:sha256:166192158.42 from 1\n+F:25:sha256:296803358.42\n",
			"openssl speed -elapsed -mr -seconds 1 -bytes 1024 -multi 2 -evp sha256", 2,
			[]speedCell{{alg: "sha256", op: "digest", block: 1024, rate: 296803358.42, line: 12}}},
		{"multi eddsa",
			"+DTP:253:sign:Ed25519:1\n+DTP:253:sign:Ed25519:1\n+R8:2440:253:Ed25519:1.07\n+DTP:253:verify:Ed25519:1\n" +
				"+R8:2375:253:Ed25519:1.05\n+DTP:253:verify:Ed25519:1\n+R9:4146:253:Ed25519:1.00\n+R9:1031:253:Ed25519:1.00\n",
			"Forked child 0\nForked child 1\nGot: +F6:0:253:Ed25519:2280.373832:1031.000000 from 0\n" +
				"Got: +F6:0:253:Ed25519:2261.904762:4146.000000 from 1\n+F6:0:253:Ed25519:4542.278594:5177.000000\n",
			"openssl speed -elapsed -mr -seconds 1 -multi 2 ed25519", 2,
			[]speedCell{
				{alg: "eddsa", op: "sign", bits: 253, curve: "ed25519", rate: 4542.278594, line: 14},
				{alg: "eddsa", op: "verify", bits: 253, curve: "ed25519", rate: 5177, line: 14},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := speedOne(t, tc.stderr+"\n"+tc.stdout, Hint{Command: strings.Fields(tc.argv), Seconds: 1})
			if r.Failed != "" || r.Timing != "wall" || r.Threads != tc.threads || len(r.Points) != len(tc.want) {
				t.Fatalf("run failed %q timing %q threads %d, %d points, want %d threads %d points: %+v",
					r.Failed, r.Timing, r.Threads, len(r.Points), tc.threads, len(tc.want), r.Points)
			}
			for _, c := range tc.want {
				p, ok := findSpeedPoint(r.Points, c)
				got := p.BytesPerSec + p.OpsPerSec
				if !ok || !speedClose(got, c.rate) || p.Count != c.count || p.Seconds != c.secs || p.Line != c.line {
					t.Errorf("%s %s = %+v, want rate %v count %v secs %v line %d", c.alg, c.op, p, c.rate, c.count, c.secs, c.line)
				}
			}
		})
	}
}

func TestParseSpeedDefaultSecondsWarning(t *testing.T) {
	// OpenSSL 1.0.x has no -seconds: asked for 1 s, it runs its default 3 s and says so in +DT
	text := "+DT:aes-128-cbc:3:16\n+R:300:aes-128-cbc:3.00\n+H:16\n+F:22:aes-128-cbc:1600.00\n"
	r := speedOne(t, text, Hint{Command: strings.Fields("openssl speed -elapsed -mr -evp aes-128-cbc"), Seconds: 1})
	if got, want := r.Points[0].BytesPerSec, 300*16/3.0; got != want {
		t.Errorf("rate = %v, want %v", got, want)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "ran 3 s per point where 1 s was asked") }) {
		t.Errorf("warnings %q lack the default-3s note", r.Warnings)
	}
}

func TestParseSpeedTableEndsAtGap(t *testing.T) {
	// a one-size table (-bytes) followed by prose that ends in a number: the prose is not a row
	const text = "Doing AES-256-GCM for 1s on 1500 size blocks: 576657 AES-256-GCM's in 1.00s\n" +
		"type           1500 bytes\nAES-256-GCM     864985.50k\n\nthat is about 864.99\n"
	r := speedOne(t, text, Hint{Command: strings.Fields("openssl speed -elapsed -bytes 1500 -evp aes-256-gcm")})
	if got, want := len(r.Points), 1; got != want {
		t.Fatalf("%d points, want %d: %+v", got, want, r.Points)
	}
	if p := r.Points[0]; p.BytesPerSec != 864985500 || p.Line != 3 {
		t.Errorf("point = %+v", p)
	}
}

// TestSpeedPointJSON pins the fields `fleet import --dry-run --format json` prints for each measurement, on two
// fixtures pasted into one file: L05 (lines 87-98) has no command line, so its run starts at its elapsed-time
// notice and that notice is not taken for the end of S00's CPU-timed run.
func TestSpeedPointJSON(t *testing.T) {
	runs, err := Parse(readSpeedFixture(t, "S00")+readSpeedFixture(t, "L05"), Hint{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 || runs[1].Timing != "cpu" || runs[2].Timing != "wall" || runs[2].Line != 88 {
		t.Fatalf("%d runs, want 3: S00 cryptodev on cpu time, L05 on the wall from line 88", len(runs))
	}
	for _, tc := range []struct {
		p    protocol.Point
		keys []string
	}{
		{runs[1].Points[4], []string{`"algorithm":"aes-256-cbc"`, `"op":"encrypt"`, `"block_size":8192`, `"bytes_per_sec":6717440`,
			`"timing":"cpu"`, `"threads":1`, `"engine":"cryptodev"`, `"mode":"devcrypto"`, `"line":52`, `"count":2460`, `"seconds":0.01`, `"wall_est_s":3`}},
		{runs[2].Points[0], []string{`"algorithm":"ecdsa"`, `"op":"sign"`, `"block_size":0`, `"key_bits":256`, `"curve":"nistp256"`,
			`"ops_per_sec":38446`, `"timing":"wall"`, `"mode":"cpu"`, `"line":97`}},
	} {
		b, err := json.Marshal(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range tc.keys {
			if !strings.Contains(string(b), k) {
				t.Errorf("JSON %s lacks %s", b, k)
			}
		}
	}
}

// TestParseSpeedPastedFixtures pastes whole captures one after the other, with no command line between them.
func TestParseSpeedPastedFixtures(t *testing.T) {
	for _, tc := range []struct {
		files  []string
		modes  []string
		timing []string
		failed []bool
		points []int
	}{
		{[]string{"L01", "L08"}, []string{"cpu", "engine:nosuchengine"}, []string{"wall", "cpu"}, []bool{false, true}, []int{6, 6}},
		{[]string{"L01", "L15"}, []string{"cpu", "afalg"}, []string{"wall", "wall"}, []bool{false, true}, []int{6, 6}},
		{[]string{"Q01", "L15", "Q05"}, []string{"afalg", "afalg", "afalg"}, []string{"wall", "wall", "wall"}, []bool{false, true, false}, []int{6, 6, 6}},
		// Q02 ran with OPENSSL_armcap=0: its CPUINFO line says so ("env:0"), which makes it soft without a command line
		{[]string{"Q01", "Q02"}, []string{"afalg", "soft"}, []string{"wall", "wall"}, []bool{false, false}, []int{6, 6}},
		{[]string{"L13", "L06"}, []string{"cpu", "cpu"}, []string{"cpu", "cpu"}, []bool{false, false}, []int{6, 6}},
		{[]string{"L02", "L02"}, []string{"cpu", "cpu"}, []string{"cpu", "cpu"}, []bool{false, false}, []int{6, 6}},
		{[]string{"L03", "L11", "Q03"}, []string{"cpu", "cpu", "cpu"}, []string{"wall", "wall", "wall"}, []bool{false, false, false}, []int{6, 2, 6}},
		{[]string{"L04", "L07", "L05"}, []string{"cpu", "cpu", "cpu"}, []string{"wall", "cpu", "wall"}, []bool{false, true, false}, []int{2, 0, 2}},
	} {
		t.Run(strings.Join(tc.files, "+"), func(t *testing.T) {
			var text string
			for _, f := range tc.files {
				text += readSpeedFixture(t, f)
			}
			runs, err := Parse(text, Hint{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := len(runs), len(tc.modes); got != want {
				t.Fatalf("%d runs, want %d", got, want)
			}
			for i, r := range runs {
				if r.Mode != tc.modes[i] || r.Timing != tc.timing[i] || (r.Failed != "") != tc.failed[i] || len(r.Points) != tc.points[i] {
					t.Errorf("run %d (line %d): mode %q timing %q failed %q, %d points; want %q %q %v %d",
						i, r.Line, r.Mode, r.Timing, r.Failed, len(r.Points), tc.modes[i], tc.timing[i], tc.failed[i], tc.points[i])
				}
			}
		})
	}
}

func TestParseSpeedCommandFromTimeV(t *testing.T) {
	// S00's engine run without its prompt line: time -v's "Command being timed" still names -engine cryptodev
	text := readSpeedFixture(t, "S00")
	i := strings.Index(text, "root@am335x-evm:~# time -v openssl speed -evp aes-256-cbc -engine cryptodev\nengine")
	if i < 0 {
		t.Fatal("S00 changed")
	}
	text = text[:i] + text[i+strings.Index(text[i:], "\n")+1:]
	text = strings.Replace(text, "engine \"cryptodev\" set.\n", "", 1)
	runs, err := Parse(text, Hint{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs, want 2", len(runs))
	}
	if r := runs[1]; r.Mode != "devcrypto" || r.Engine != "cryptodev" || r.Timing != "cpu" ||
		!slices.Equal(r.Command, strings.Fields("openssl speed -evp aes-256-cbc -engine cryptodev")) {
		t.Errorf("run = mode %q engine %q timing %q command %q", r.Mode, r.Engine, r.Timing, r.Command)
	}
}

// TestParseSpeedEnvironment: the environment a capture shows (an OPENSSL_* prefix on its command line, CPUINFO's
// env:) decides soft and is kept as the run's Env; a partial mask is kept and leaves the mode cpu.
func TestParseSpeedEnvironment(t *testing.T) {
	body := "You have chosen to measure elapsed time instead of user CPU time.\n" +
		"Doing AES-128-CBC for 1s on 16 size blocks: 1000000 AES-128-CBC's in 1.00s\n" +
		"version: 3.0.19\n%s" +
		"The 'numbers' are in 1000s of bytes per second processed.\n" +
		"type             16 bytes\nAES-128-CBC      16000.00k\n"
	for _, tc := range []struct {
		name, head, cpuinfo string
		mode, from          string
		env                 map[string]string
		known               bool
	}{
		{"armcap prefix", "$ OPENSSL_armcap=0x0 openssl speed -elapsed -evp aes-128-cbc\n", "", "soft", "environment",
			map[string]string{"OPENSSL_armcap": "0x0"}, true},
		{"ia32cap soft mask on x86", "root@pc:~# OPENSSL_ia32cap=0 openssl speed -elapsed -evp aes-128-cbc\n",
			"CPUINFO: OPENSSL_ia32cap=0x0:0x0 env:0\n", "soft", "environment", map[string]string{"OPENSSL_ia32cap": "0"}, true},
		// AES-NI off, PCLMULQDQ still on: partial, so cpu with the mask as its environment
		{"ia32cap partial mask on x86", "root@pc:~# OPENSSL_ia32cap=~0x200000000000000 openssl speed -elapsed -evp aes-128-cbc\n",
			"CPUINFO: OPENSSL_ia32cap=0x7ffaf3bfffebffff:0x40069c219c97a9 env:~0x200000000000000\n", "cpu", "",
			map[string]string{"OPENSSL_ia32cap": "~0x200000000000000"}, true},
		{"shell-quoted ia32cap mask", "$ OPENSSL_ia32cap=':~0x20000000' openssl speed -elapsed -evp aes-128-cbc\n", "", "cpu", "",
			map[string]string{"OPENSSL_ia32cap": ":~0x20000000"}, true},
		{"partial armcap mask", "OPENSSL_armcap=0x3d OPENSSL_CONF=/etc/ssl/dev.cnf openssl speed -elapsed -evp aes-128-cbc\n", "",
			"cpu", "", map[string]string{"OPENSSL_armcap": "0x3d", "OPENSSL_CONF": "/etc/ssl/dev.cnf"}, true},
		{"cpuinfo env only", "", "CPUINFO: OPENSSL_armcap=0x0 env:0\n", "soft", "environment", map[string]string{"OPENSSL_armcap": "0"}, true},
		{"cpuinfo without env", "", "CPUINFO: OPENSSL_armcap=0xbd\n", "cpu", "", map[string]string{}, true},
		{"nothing shown", "", "", "cpu", "", nil, false},
		{"engine", "$ openssl speed -engine devcrypto -elapsed -evp aes-128-cbc\n", "", "devcrypto", "command line", map[string]string{}, true},
	} {
		text := tc.head + fmt.Sprintf(body, tc.cpuinfo)
		runs, err := Parse(text, Hint{})
		if err != nil || len(runs) != 1 {
			t.Fatalf("%s: %d runs, %v", tc.name, len(runs), err)
		}
		r := runs[0]
		if r.Mode != tc.mode || r.ModeFrom != tc.from || r.EnvKnown != tc.known || !maps.Equal(r.Env, tc.env) || (tc.known && r.Env == nil) {
			t.Errorf("%s: mode %q from %q, env %v known %v; want %q from %q, env %v known %v", tc.name, r.Mode, r.ModeFrom,
				r.Env, r.EnvKnown, tc.mode, tc.from, tc.env, tc.known)
		}
	}
}
