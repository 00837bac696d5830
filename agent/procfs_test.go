package agent

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

const cpuinfoArmv7A9 = `processor	: 0
model name	: ARMv7 Processor rev 10 (v7l)
BogoMIPS	: 7.54
Features	: half thumb fastmult vfp edsp neon vfpv3 tls vfpd32
CPU implementer	: 0x41
CPU architecture: 7
CPU variant	: 0x2
CPU part	: 0xc09
CPU revision	: 10

processor	: 1
model name	: ARMv7 Processor rev 10 (v7l)
Features	: half thumb fastmult vfp edsp neon vfpv3 tls vfpd32
CPU implementer	: 0x41
CPU part	: 0xc09

Hardware	: Freescale i.MX6 Quad/DualLite (Device Tree)
Revision	: 0000
`

const cpuinfoArm64A53 = `processor	: 0
BogoMIPS	: 48.00
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x0
CPU part	: 0xd03
CPU revision	: 4

processor	: 1
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid
CPU implementer	: 0x41
CPU part	: 0xd03

processor	: 2
CPU part	: 0xd03

processor	: 3
CPU part	: 0xd03
`

// ARMv5 kernels print "Processor" with the core and no "processor : N" on old versions.
const cpuinfoArm926 = `Processor	: ARM926EJ-S rev 5 (v5l)
BogoMIPS	: 198.65
Features	: swp half thumb fastmult edsp java
CPU implementer	: 0x41
CPU architecture: 5TEJ
CPU variant	: 0x0
CPU part	: 0x926
CPU revision	: 5

Hardware	: Atmel AT91SAM9
`

const cpuinfoX86 = `processor	: 0
vendor_id	: GenuineIntel
model name	: Intel(R) Core(TM) i5-4690K CPU @ 3.50GHz
cpu MHz		: 3499.912
flags		: fpu vme sse2 ssse3 pclmulqdq sse4_2 aes avx avx2 sha_ni
processor	: 1
model name	: Intel(R) Core(TM) i5-4690K CPU @ 3.50GHz
flags		: fpu vme sse2 ssse3 pclmulqdq sse4_2 aes avx avx2 sha_ni
`

func TestParseCPUInfo(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     protocol.CPUFacts
	}{
		{"armv7 cortex-a9", cpuinfoArmv7A9, protocol.CPUFacts{Model: "Cortex-A9 (Freescale i.MX6 Quad/DualLite (Device Tree))",
			Implementer: "0x41", Part: "0xc09", Cores: 2, Features: []string{"neon", "vfp"}}},
		{"arm64 cortex-a53", cpuinfoArm64A53, protocol.CPUFacts{Model: "Cortex-A53", Implementer: "0x41", Part: "0xd03", Cores: 4,
			Features: []string{"aes", "asimd", "crc32", "pmull", "sha1", "sha2"}}},
		{"armv5 arm926", cpuinfoArm926, protocol.CPUFacts{Model: "ARM926 (Atmel AT91SAM9)", Implementer: "0x41", Part: "0x926", Cores: 1}},
		{"x86", cpuinfoX86, protocol.CPUFacts{Model: "Intel(R) Core(TM) i5-4690K CPU @ 3.50GHz", Cores: 2, CurMHz: 3499.912,
			Features: []string{"aes", "avx", "avx2", "pclmulqdq", "sha_ni", "sse4_2", "ssse3"}}},
		{"empty", "", protocol.CPUFacts{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := parseCPUInfo(strings.NewReader(tc.in))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseCPUInfo =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

func TestARMCoreName(t *testing.T) {
	for _, tc := range []struct{ impl, part, want string }{
		{"0x41", "0xc08", "Cortex-A8"}, {"0x41", "0xc09", "Cortex-A9"}, {"0x41", "0xc07", "Cortex-A7"},
		{"0x41", "0xc0f", "Cortex-A15"}, {"0x41", "0xd03", "Cortex-A53"}, {"0x41", "0xd04", "Cortex-A35"},
		{"0x41", "0xd05", "Cortex-A55"}, {"0x41", "0xd07", "Cortex-A57"}, {"0x41", "0xd08", "Cortex-A72"},
		{"0x41", "0xd09", "Cortex-A73"}, {"0x41", "0xd0b", "Cortex-A76"}, {"0x41", "0x926", "ARM926"},
		{"0x41", "0xD08", "Cortex-A72"}, {"0x51", "0xd03", ""}, {"0x41", "0xfff", ""},
	} {
		if got := armCoreName(tc.impl, tc.part); got != tc.want {
			t.Errorf("armCoreName(%s, %s) = %q, want %q", tc.impl, tc.part, got, tc.want)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	const stat = "cpu  100 5 50 800 20 3 2 10 0 0\ncpu0 50 2 25 400 10 1 1 5 0 0\nintr 123\n"
	got, err := parseProcStat(strings.NewReader(stat))
	if err != nil {
		t.Fatal(err)
	}
	// busy = user+nice+system+irq+softirq+steal = 100+5+50+3+2+10, total adds idle 800 and iowait 20
	if want := (cpuTimes{Busy: 170, Total: 990}); got != want {
		t.Errorf("parseProcStat = %+v, want %+v", got, want)
	}
	after := cpuTimes{Busy: 170 + 150, Total: 990 + 200}
	if pct, ok := busyPct(got, after); !ok || pct != 75 {
		t.Errorf("busyPct = %v, %v, want 75, true", pct, ok)
	}
	if _, ok := busyPct(got, got); ok {
		t.Errorf("busyPct over no time: ok, want not ok")
	}
	if _, err := parseProcStat(strings.NewReader("intr 1\n")); err == nil {
		t.Errorf("parseProcStat without cpu line: no error")
	}
}

const interruptsAM335x = `           CPU0       
 16:          0      INTC  96 Level     44e0e000.tscadc
 18:     221144      INTC  66 Level     gp_timer
 56:      38217      INTC 103 Level     53500000.aes
 57:         12      INTC 102 Level     53100000.sham
 58:       9911      INTC  12 Level     edma
 90:        415      INTC 111 Level     omap-aes
 91:          7      INTC 112 Level     omap-sham
Err:          0
`

const interruptsSMP = `           CPU0       CPU1       CPU2       CPU3       
 24:       1000       2000          0          0     GICv3  120 Level     2104000.crypto
 25:          5          0          0          0     GICv3  121 Level     ttyS0
 26:         10         20         30         40     GICv3  122 Level     sec-jr0
 27:         10         20         30         40     GICv3  123 Level     secure-monitor
IPI0:       100        100        100        100       Rescheduling interrupts
`

func TestParseCryptoInterrupts(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[string]int64
	}{
		{"am335x", interruptsAM335x, map[string]int64{"90": 415, "91": 7}},
		{"smp", interruptsSMP, map[string]int64{"24": 3000, "26": 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := parseCryptoInterrupts(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, l := range lines {
				got[l.IRQ] = l.Count
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("crypto IRQs = %v, want %v", got, tc.want)
			}
		})
	}
	before, _ := parseCryptoInterrupts(strings.NewReader(interruptsSMP))
	after, _ := parseCryptoInterrupts(strings.NewReader(strings.Replace(interruptsSMP, "1000       2000", "1500       2600", 1)))
	if got, want := irqDelta(before, after), int64(1100); got != want {
		t.Errorf("irqDelta = %d, want %d", got, want)
	}
}

// procCryptoFull is an excerpt of a full /proc/crypto (this Debian 12 host's format) with priorities.
const procCryptoFull = `name         : cbc(aes)
driver       : cbc(ecb(aes-fixed-time))
module       : kernel
priority     : 101
refcnt       : 1
selftest     : passed
internal     : no
type         : lskcipher
blocksize    : 16

name         : cbc(aes)
driver       : cbc-aes-aesni
module       : aesni_intel
priority     : 400
refcnt       : 1
selftest     : passed
internal     : no
type         : skcipher

name         : cbc(aes)
driver       : cbc-aes-broken
module       : kernel
priority     : 900
selftest     : failed
type         : skcipher

name         : sha256
driver       : sha256-lib
module       : kernel
priority     : 300
refcnt       : 1
selftest     : passed
internal     : no
type         : shash
blocksize    : 64
digestsize   : 32
`

func TestParseProcCryptoFull(t *testing.T) {
	algs, err := ParseProcCrypto(strings.NewReader(procCryptoFull))
	if err != nil {
		t.Fatal(err)
	}
	want := []protocol.CryptoAlg{
		{Name: "cbc(aes)", Driver: "cbc(ecb(aes-fixed-time))", Module: "kernel", Priority: 101, Type: "lskcipher", Selftest: "passed"},
		{Name: "cbc(aes)", Driver: "cbc-aes-aesni", Module: "aesni_intel", Priority: 400, Type: "skcipher", Selftest: "passed"},
		{Name: "cbc(aes)", Driver: "cbc-aes-broken", Module: "kernel", Priority: 900, Type: "skcipher", Selftest: "failed"},
		{Name: "sha256", Driver: "sha256-lib", Module: "kernel", Priority: 300, Type: "shash", Selftest: "passed"},
	}
	if !reflect.DeepEqual(algs, want) {
		t.Errorf("ParseProcCrypto =\n%+v\nwant\n%+v", algs, want)
	}
	for _, tc := range []struct{ name, kind, want string }{
		{"cbc(aes)", "skcipher", "cbc-aes-aesni"}, // the failed self-test is never chosen
		{"sha256", "hash", "sha256-lib"},
		{"sha256", "skcipher", ""},
		{"gcm(aes)", "aead", ""},
	} {
		if got := bestCryptoDriver(algs, tc.name, tc.kind); got != tc.want {
			t.Errorf("bestCryptoDriver(%s, %s) = %q, want %q", tc.name, tc.kind, got, tc.want)
		}
	}
	if _, err := ParseProcCrypto(strings.NewReader("name : x\npriority : high\n")); err == nil {
		t.Errorf("ParseProcCrypto with a bad priority: no error")
	}
}

func TestParseProcCryptoFixtures(t *testing.T) {
	dir := filepath.Join("testdata", "proc") // copied from the project's shared fixtures; see its README.md
	for _, tc := range []struct {
		file    string
		entries int
		// index → name/driver read from the file
		want map[int]protocol.CryptoAlg
		best map[string]string // name → first driver listed (the excerpts carry no priorities)
	}{
		{"qemu-arm64-max-proc-crypto.txt", 30,
			map[int]protocol.CryptoAlg{0: {Name: "crct10dif", Driver: "crct10dif-arm64-ce"}, 6: {Name: "gcm(aes)", Driver: "gcm-aes-ce"},
				29: {Name: "cbc(aes)", Driver: "cbc-aes-neonbs"}},
			map[string]string{"gcm(aes)": "gcm-aes-ce", "sha256": "sha256-ce", "cbc(aes)": "cbc-aes-neonbs", "sha1": "sha1-ce",
				"ctr(aes)": "ctr-aes-neonbs"}},
		{"qemu-armv7-a15-proc-crypto.txt", 30,
			map[int]protocol.CryptoAlg{0: {Name: "poly1305", Driver: "poly1305-neon"}, 25: {Name: "cbc(aes)", Driver: "cbc(aes-arm)"},
				27: {Name: "cbc(aes)", Driver: "cbc-aes-neonbs"}, 29: {Name: "ecb(aes)", Driver: "ecb-aes-neonbs"}},
			map[string]string{"sha256": "sha256-neon", "cbc(aes)": "cbc(aes-arm)", "ghash": "cryptd(ghash-ce-sync)"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			algs, err := ParseProcCrypto(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(algs) != tc.entries {
				t.Fatalf("%d entries, want %d", len(algs), tc.entries)
			}
			for i, w := range tc.want {
				if algs[i] != w {
					t.Errorf("entry %d = %+v, want %+v", i, algs[i], w)
				}
			}
			for _, a := range algs {
				if a.Priority != 0 || a.Driver == "" {
					t.Errorf("entry %+v: want a driver and priority 0 (the excerpt has no priority lines)", a)
				}
			}
			for name, want := range tc.best {
				if got := bestCryptoDriver(algs, name, ""); got != want {
					t.Errorf("bestCryptoDriver(%s) = %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestFactsKernelDriver(t *testing.T) {
	f := &protocol.Facts{ProcCrypto: []protocol.CryptoAlg{
		{Name: "cbc(aes)", Driver: "cbc-aes-generic", Priority: 100, Selftest: "passed"},
		{Name: "cbc(aes)", Driver: "cbc-aes-sa2ul", Priority: 5000, Selftest: "unknown"}, // failed or not run: not picked
		{Name: "cbc(aes)", Driver: "cbc-aes-neonbs", Priority: 250, Selftest: "passed"},
		{Name: "sha256", Driver: "sha256-ce", Priority: 200},
	}}
	tests := []struct {
		name, driver string
		prio         int
		ok           bool
	}{
		{"cbc(aes)", "cbc-aes-neonbs", 250, true},
		{"sha256", "sha256-ce", 200, true},
		{"gcm(aes)", "", 0, false},
	}
	for _, tt := range tests {
		got, ok := f.KernelDriver(tt.name)
		if got.Driver != tt.driver || got.Priority != tt.prio || ok != tt.ok {
			t.Errorf("KernelDriver(%s) = %s (%d), %v; want %s (%d), %v", tt.name, got.Driver, got.Priority, ok, tt.driver, tt.prio, tt.ok)
		}
	}
	if got, ok := (*protocol.Facts)(nil).KernelDriver("cbc(aes)"); ok {
		t.Errorf("nil facts: KernelDriver = %+v, want none", got)
	}
}

func TestKernelAlgorithm(t *testing.T) {
	for alg, want := range map[string]string{"aes-128-cbc": "cbc(aes)", "aes-256-gcm": "gcm(aes)", "sha256": "sha256", "rsa": "",
		"AES-128-CTR": "ctr(aes)", "des-ede3-cbc": "cbc(des3_ede)", "chacha20-poly1305": "rfc7539(chacha20,poly1305)"} {
		if got := protocol.KernelAlgorithm(alg); got != want {
			t.Errorf("protocol.KernelAlgorithm(%q) = %q, want %q", alg, got, want)
		}
	}
	// The kcapi mode benchmarks the same kernel algorithm a report names the driver of.
	for _, a := range kcapiSpecs {
		alg, spec := a.alg, a.spec
		if got := protocol.KernelAlgorithm(alg); got != spec.Name {
			t.Errorf("protocol.KernelAlgorithm(%q) = %q, but kcapi measures %q", alg, got, spec.Name)
		}
	}
}
