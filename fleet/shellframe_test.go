package fleet

import (
	"errors"
	"io"
	"math"
	"os/exec"
	"strings"
	"testing"
)

const testNonce = "00112233445566778899aabbccddeeff"

func readAll(t *testing.T, out string) ([]shellRecord, error) {
	t.Helper()
	fr := newFrameReader(strings.NewReader(out), testNonce)
	var recs []shellRecord
	for {
		r, err := fr.next()
		if errors.Is(err, io.EOF) {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, r)
	}
}

func TestFrameReader(t *testing.T) {
	m := "@@" + testNonce + " "
	out := "login banner\n\n" + m + "R\n+H:16\n+F:22:aes-128-cbc:1.0\n" + "\n" + m + "X 0\n" + "\n" + m + "E\nno newline" +
		"\n" + m + "V /proc/loadavg\n0.10 0.05 0.01 1/80 123" + "\n" + m + "Q\n"
	recs, err := readAll(t, out)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.kind+"("+r.arg+")="+string(r.content))
	}
	want := []string{"R()=+H:16\n+F:22:aes-128-cbc:1.0\n", "X(0)=", "E()=no newline", "V(/proc/loadavg)=0.10 0.05 0.01 1/80 123", "Q()="}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("records\n got %q\nwant %q", got, want)
	}
	for _, bad := range []string{
		m + "J what\n", // unknown kind
		m + "X zero\n", // exit status not a number
		m + "F /x\n" + strings.Repeat("y", maxRecordBytes+10) + "\n", // too long
	} {
		if _, err := readAll(t, "\n"+bad); !errors.Is(err, errFrame) {
			t.Errorf("readAll(%.40q…) = %v, want errFrame", bad, err)
		}
	}
	// another session's nonce is content, not a marker
	recs, _ = readAll(t, "\n"+m+"R\n@@ffff R\n\n"+m+"Q\n")
	if len(recs) != 2 || string(recs[0].content) != "@@ffff R\n" {
		t.Errorf("a foreign marker: %+v", recs)
	}
}

// TestShellScriptsRun runs the prelude, a probe and a point under every POSIX shell the machine has (dash and
// BusyBox ash on Debian) and reads the records back: the script is plain POSIX sh.
func TestShellScriptsRun(t *testing.T) {
	shells := [][]string{{"dash"}, {"busybox", "sh"}, {"bash", "--posix"}}
	ran := 0
	for _, sh := range shells {
		if _, err := exec.LookPath(sh[0]); err != nil {
			continue
		}
		ran++
		t.Run(sh[0], func(t *testing.T) {
			script := preludeScript(testNonce) + probeScript("sh", []string{"FLEET_X=it's"}, []string{"x"}, nil, 10) +
				pointScript([]string{"FLEET_X=it's $HOME"}, []string{"sh", "-c", `printf '%s' "$FLEET_X"; echo err >&2; exit 3`}, 10)
			cmd := exec.Command(sh[0], append(sh[1:], "-s")...)
			cmd.Stdin = strings.NewReader(script)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s -s: %v\n%s", sh[0], err, out)
			}
			recs, err := readAll(t, string(out))
			if err != nil {
				t.Fatal(err)
			}
			s := &shellSession{board: "test", mirror: t.TempDir()}
			// the last request is the point: from the last Q but one
			var qs []int
			for i, r := range recs {
				if r.kind == recDone {
					qs = append(qs, i)
				}
			}
			if len(qs) != 3 {
				t.Fatalf("%d requests completed, want 3 (prelude, probe, point)", len(qs))
			}
			r := s.run(recs[qs[1]+1 : qs[2]])
			if r.Err != nil || r.Exit != 3 || r.Stdout != "it's $HOME" || strings.TrimSpace(r.Stderr) != "err" {
				t.Errorf("point: exit %d stdout %q stderr %q err %v", r.Exit, r.Stdout, r.Stderr, r.Err)
			}
			if !r.Before.OwnOK || !r.After.OwnOK || r.After.OwnS < r.Before.OwnS {
				t.Errorf("times around the point: before %+v after %+v", r.Before, r.After)
			}
			if r.WallS <= 0 {
				t.Errorf("wall %v, want > 0", r.WallS)
			}
		})
	}
	if ran == 0 {
		t.Skip("no dash, busybox or bash")
	}
}

func TestParseTimes(t *testing.T) {
	tests := []struct {
		in   string
		want shellTimes
		ok   bool
	}{
		{"0m0.010000s 0m0.020000s\n0m1.500000s 0m0.250000s\n", shellTimes{0.01, 0.02, 1.5, 0.25}, true}, // dash
		{"0m0.000s 0m0.000s\n0m0.360s 0m0.010s\n", shellTimes{0, 0, 0.36, 0.01}, true},                  // busybox, bash
		{"0m 0.01s 0m 0.02s\n1m 2.50s 0m 3.10s\n", shellTimes{0.01, 0.02, 62.5, 3.1}, true},             // older busybox
		{"1h2m3.00s 0m0,50s\n0m0s 0m0s\n", shellTimes{3723, 0.5, 0, 0}, true},
		{"0m0.01s 0m0.02s\n", shellTimes{}, false},
		{"0m0.01s\n0m0.01s\n", shellTimes{}, false},
		{"0m-1s 0m0s\n0m0s 0m0s\n", shellTimes{}, false},
		{"0mNaNs 0m0s\n0m0s 0m0s\n", shellTimes{}, false},
		{"0m1e9s 0m0s\n0m0s 0m0s\n", shellTimes{}, false},
		{"user 0.01\nsys 0.02\n", shellTimes{}, false},
	}
	for _, tt := range tests {
		got, err := parseTimes(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("parseTimes(%q) error %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && !timesNear(got, tt.want) {
			t.Errorf("parseTimes(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func timesNear(a, b shellTimes) bool {
	near := func(x, y float64) bool { return math.Abs(x-y) < 1e-9 }
	return near(a.selfUser, b.selfUser) && near(a.selfSys, b.selfSys) && near(a.kidsUser, b.kidsUser) && near(a.kidsSys, b.kidsSys)
}

func TestWriteMirrorRefusesPaths(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"/proc/stat", "/sys/devices/system/cpu/cpufreq/policy0/stats/time_in_state", "/sys/class/thermal/thermal_zone0/temp"} {
		if !writeMirror(root, p, []byte("1")) {
			t.Errorf("writeMirror(%s) refused", p)
		}
	}
	for _, p := range []string{"/etc/passwd", "/proc/../../etc/x", "/sys/class/thermal/thermal_zone0/../../x", "proc/stat", "/proc/stat/../x", ""} {
		if writeMirror(root, p, []byte("1")) {
			t.Errorf("writeMirror(%q) accepted", p)
		}
	}
}

func TestShellReason(t *testing.T) {
	tests := []struct{ uname, kernel, want string }{
		{"armv7l", "6.1.0", ""},
		{"armv7l", "3.0.35-2666-gbdde708", "older than Go's minimum for armv7 (Linux 3.2)"},
		{"armv5teb", "2.6.32", "big-endian ARM"},
		{"ppc", "3.12.19", "32-bit PowerPC"},
		{"sh4", "4.4", "no Go port"},
		{"loongarch64", "5.10.0", "older than Go's minimum for loong64 (Linux 5.19)"},
		{"mips64", "4.1.0", ""},
		{"aarch64", "5.x", "not a version"},
		{"x86_64", "3.2.0", ""},
	}
	for _, tt := range tests {
		got := ShellReason(tt.uname, tt.kernel)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("ShellReason(%q, %q) = %q, want %q", tt.uname, tt.kernel, got, tt.want)
		}
	}
	// the byte order and the FPU refine mips
	for _, tt := range []struct {
		p    boardPlatform
		want string
	}{
		{boardPlatform{uname: "mips", elf: "01", fpu: "no"}, "mipsle-softfloat"},
		{boardPlatform{uname: "mips", elf: "02", fpu: "yes"}, "mips"},
		{boardPlatform{uname: "mips64", elf: "01"}, "mips64le"},
	} {
		if got, _ := tt.p.archFor(); got != tt.want {
			t.Errorf("archFor(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}
