package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func FuzzParseProcCrypto(f *testing.F) {
	f.Add(procCryptoFull)
	for _, name := range []string{"qemu-arm64-max-proc-crypto.txt", "qemu-armv7-a15-proc-crypto.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", "proc", name))
		if err != nil {
			f.Fatalf("seed corpus: %v", err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		algs, _ := ParseProcCrypto(strings.NewReader(in))
		names := 0
		for _, l := range strings.Split(in, "\n") {
			if k, _, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && strings.TrimSpace(k) == "name" {
				names++
			}
		}
		if len(algs) > names {
			t.Errorf("%d entries from %d name lines", len(algs), names)
		}
		for _, a := range algs {
			bestCryptoDriver(algs, a.Name, "skcipher")
		}
	})
}

func FuzzParseCPUInfo(f *testing.F) {
	for _, s := range []string{cpuinfoArmv7A9, cpuinfoArm64A53, cpuinfoArm926, cpuinfoX86} {
		f.Add(s)
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		c := parseCPUInfo(strings.NewReader(in))
		if c.Cores < 0 {
			t.Errorf("cores %d", c.Cores)
		}
		for _, feat := range c.Features {
			if !slices.Contains(cpuFeaturesOfInterest, feat) {
				t.Errorf("feature %q not of interest", feat)
			}
		}
	})
}

func FuzzProcStatAndInterrupts(f *testing.F) {
	f.Add("cpu  100 5 50 800 20 3 2 10 0 0\n", interruptsSMP)
	f.Add("cpu 1 2 3\n", interruptsAM335x)
	f.Fuzz(func(t *testing.T, stat, irqs string) {
		if st, err := parseProcStat(strings.NewReader(stat)); err == nil {
			if st.Busy > st.Total {
				t.Errorf("busy %d > total %d", st.Busy, st.Total)
			}
			if p, ok := busyPct(cpuTimes{}, st); ok && (p < 0 || p > 100) {
				t.Errorf("busy %v%%", p)
			}
		}
		lines, _ := parseCryptoInterrupts(strings.NewReader(irqs))
		if d := irqDelta(lines, lines); d != 0 {
			t.Errorf("irqDelta of a sample with itself = %d", d)
		}
		if d := irqDelta(nil, lines); d < 0 {
			t.Errorf("irqDelta = %d", d)
		}
	})
}

func FuzzParseOpenSSLVersion(f *testing.F) {
	for _, s := range []string{"OpenSSL 3.0.19 27 Jan 2026", "OpenSSL 1.0.1e-fips 11 Feb 2013", "LibreSSL 3.8.2", "OpenSSL 99999999999999999999.1.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, printed, ok := parseOpenSSLVersion(in)
		if ok && (printed == "" || !strings.Contains(in, printed)) {
			t.Errorf("parseOpenSSLVersion(%q) = %+v, %q", in, v, printed)
		}
		firstErrorLine(in)
	})
}
