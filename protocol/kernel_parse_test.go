package protocol

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseKmsgRecord(t *testing.T) {
	for _, tc := range []struct {
		name, rec string
		want      KernelLine
		bad       bool
	}{
		// Records as this machine's /dev/kmsg printed them (facility 0 kernel, level 5 notice; 4 warning).
		{"notice", "5,0,0,-;Linux version 6.18.44-fc-v1045 (builder@sandboxing)\n",
			KernelLine{Seq: 0, Level: 5, Usec: 0, Text: "Linux version 6.18.44-fc-v1045 (builder@sandboxing)"}, false},
		{"dictionary dropped", "3,1234,5140900,-,caller=T1;virtio_crypto virtio0: dataq.0:vq error\n SUBSYSTEM=virtio\n DEVICE=+virtio:virtio0\n",
			KernelLine{Seq: 1234, Level: 3, Usec: 5140900, Text: "virtio_crypto virtio0: dataq.0:vq error"}, false},
		{"user facility", "12,77,99,-;fleet: marker\n", KernelLine{Seq: 77, Level: 4, Usec: 99, Text: "fleet: marker"}, false},
		{"escaped stays escaped", `6,5,6,-;a\x09b` + "\n", KernelLine{Seq: 5, Level: 6, Usec: 6, Text: `a\x09b`}, false},
		{"no semicolon", "6,5,6,-\n", KernelLine{}, true},
		{"too few fields", "6,5;x\n", KernelLine{}, true},
		{"negative seq", "6,-5,6,-;x\n", KernelLine{}, true},
		{"not a number", "6,x,6,-;x\n", KernelLine{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKmsgRecord([]byte(tc.rec))
			if (err != nil) != tc.bad {
				t.Fatalf("ParseKmsgRecord(%q) error %v, want bad %v", tc.rec, err, tc.bad)
			}
			if got != tc.want {
				t.Errorf("ParseKmsgRecord(%q) = %+v, want %+v", tc.rec, got, tc.want)
			}
		})
	}
}

func TestParseDmesgLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want KernelLine
		ok   bool
	}{
		// The qemu-arm64 lab board's busybox `dmesg -r` and its ramoops record.
		{"<6>[    8.047617] ramoops: using 0x100000@0x5ff00000, ecc: 0", KernelLine{Level: 6, Usec: 8047617, Text: "ramoops: using 0x100000@0x5ff00000, ecc: 0"}, true},
		{"<0>[   16.122270] Kernel panic - not syncing: sysrq triggered crash", KernelLine{Level: 0, Usec: 16122270, Text: "Kernel panic - not syncing: sysrq triggered crash"}, true},
		{"[    0.000000] Booting Linux on physical CPU 0x0", KernelLine{Level: -1, Usec: 0, Text: "Booting Linux on physical CPU 0x0"}, true},
		{"no time at all", KernelLine{Level: -1, Text: "no time at all"}, true},
		{"<6>", KernelLine{}, false},
		{"", KernelLine{}, false},
		{"[bad] x", KernelLine{Level: -1, Text: "[bad] x"}, true},
	} {
		got, ok := ParseDmesgLine(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseDmesgLine(%q) = %+v, %v, want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestCutKernelText(t *testing.T) {
	long := strings.Repeat("é", MaxKernelLineBytes) // 2 bytes each: the cut falls inside one
	got, cut := CutKernelText(long)
	if !cut || len(got) > MaxKernelLineBytes || !utf8.ValidString(got) {
		t.Errorf("CutKernelText(%d bytes) = %d bytes, cut %v, valid %v", len(long), len(got), cut, utf8.ValidString(got))
	}
	if got, _ := CutKernelText("a\tb\x00c\n"); got != "a b c " {
		t.Errorf("control characters: got %q", got)
	}
}

// FuzzKernelLog feeds both kernel log parsers what a board could print: neither may panic, and what they return
// is bounded, valid UTF-8 on one line.
func FuzzKernelLog(f *testing.F) {
	for _, s := range []string{"5,0,0,-;Linux version 6.18\n", "3,1234,5140900,-,caller=T1;x\n SUBSYSTEM=virtio\n",
		"<0>[   16.122270] Kernel panic - not syncing: sysrq triggered crash", "[ 1.5] x", "<99999999999>[1.1234567891] y",
		"6,;", ";", "\xff\xfe;\x00", "<6>[    8.047617] " + strings.Repeat("x", 600),
		"Internal error: OOPS", "kernel BUG at x", "SELF-TEST x FAIL", "rcu: INFO: rcu_sched detected stall",
		"sun8i-ce 1c15000.crypto: ERROR", "ALG: x tests failed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		check := func(l KernelLine) {
			if len(l.Text) > MaxKernelLineBytes || !utf8.ValidString(l.Text) || strings.ContainsAny(l.Text, "\n\r") {
				t.Fatalf("bad text %q", l.Text)
			}
			if l.Level < -1 || l.Level > 7 || l.Seq < 0 || l.Usec < 0 {
				t.Fatalf("bad line %+v", l)
			}
		}
		if l, err := ParseKmsgRecord([]byte(s)); err == nil {
			check(l)
		}
		if p := guardMisses(s); p != "" { // the guards skip no line a default pattern's regexp matches
			t.Fatalf("%q matches %s's regexp but not its guard", s, p)
		}
		for _, line := range strings.Split(s, "\n") {
			if l, ok := ParseDmesgLine(line); ok {
				check(l)
			}
		}
	})
}
