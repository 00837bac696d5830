package opensslspeed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseRefusesAbsurdNumbers: a number no measurement can have is a Problem of its run, never a point and
// never dropped without a word.
func TestParseRefusesAbsurdNumbers(t *testing.T) {
	const doing = "Doing aes-128-cbc for 3s on 16 size blocks: "
	for _, tt := range []struct {
		name, text, want string
	}{
		{"count 1e29", doing + "100000000000000000000000000000 aes-128-cbc's in 3.00s\n", "count 1e+29 is out of range"},
		{"count 1e29 written so", doing + "1e29 aes-128-cbc's in 3.00s\n", "count 1e+29 is out of range"},
		{"rate from a count", "Doing aes-128-cbc for 1s on 16384 size blocks: 999999999999999 aes-128-cbc's in 1.00s\n",
			"rate (B/s) 1.6383999999999984e+19 is out of range"},
		{"negative count", doing + "-5 aes-128-cbc's in 3.00s\n", "count -5 is negative"},
		{"negative seconds", doing + "5 aes-128-cbc's in -1.00s\n", "seconds -1 is negative"},
		{"-mr negative count", "+DT:aes-128-cbc:3:16\n+R:-5:aes-128-cbc:3.000000\n", "count -5 is negative"},
		{"-mr count 1e400", "+DT:aes-128-cbc:3:16\n+R:1e400:aes-128-cbc:3.000000\n", "count 1e400 is not a finite number"},
		{"-mr rate 1e400", "+H:16\n+F:22:aes-128-cbc:1e400\n", "rate (B/s) 1e400 is not a finite number"},
		{"-mr negative rate", "+H:16\n+F:22:aes-128-cbc:-7.00\n", "rate (B/s) -7 is negative"},
		{"-mr asym rate", "+F2:2:2048:1e30:5.0\n", "rsa sign rate (ops/s) 1e+30 is out of range"},
		{"table cell", "type 16 bytes\naes-128-cbc 99999999999999999.00k\n", "rate (B/s) 1e+20 is out of range"},
		{"block size 1e14 in a header", "type 100000000000000 bytes\naes-128-cbc 1.00k\n", "block size 100000000000000 B is out of range"},
		{"block size 1e14 in a Doing line", "Doing aes-128-cbc for 3s on 100000000000000 size blocks: 5 aes-128-cbc's in 3.00s\n",
			"block size 100000000000000 B is out of range"},
		{"block size 1e14 in +H", "+H:16:100000000000000\n+F:22:aes-128-cbc:1.00:2.00\n", "block size 100000000000000 B is out of range"},
		{"-bytes 1e14", "$ openssl speed -bytes 100000000000000 -evp aes-128-cbc\nDoing aes-128-cbc for 3s on 16 size blocks: 5 aes-128-cbc's in 3.00s\n",
			"-bytes 100000000000000 is out of range"},
		{"-multi 100000", "$ openssl speed -multi 100000 -evp aes-128-cbc\nDoing aes-128-cbc for 3s on 16 size blocks: 5 aes-128-cbc's in 3.00s\n",
			"-multi 100000 is out of range"},
		{"child 99999", "Got: +H:16 from 99999\n", "-multi child 99999 is out of range"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, _ := Parse(tt.text, Hint{})
			var probs []string
			for _, r := range runs {
				for _, p := range r.Problems {
					probs = append(probs, p.String())
				}
				if len(r.Problems) > 0 && r.Failed == "" {
					t.Errorf("run with problems %v is not failed", r.Problems)
				}
				for _, p := range r.Points {
					if p.BytesPerSec > MaxBytesPerSec || p.OpsPerSec > MaxOpsPerSec || p.Count > MaxCount || p.Seconds < 0 ||
						p.BlockSize > MaxBlockSize {
						t.Errorf("point kept: %+v", p)
					}
				}
			}
			if len(probs) == 0 || !strings.Contains(strings.Join(probs, "\n"), tt.want) {
				t.Errorf("problems %q, want one containing %q", probs, tt.want)
			}
		})
	}
}

// TestParseKeepsNumbersInBounds: the bounds are far from real figures; a fast real point is kept.
func TestParseKeepsNumbersInBounds(t *testing.T) {
	runs, err := Parse("Doing aes-128-cbc for 3s on 16384 size blocks: 900000 aes-128-cbc's in 3.00s\n", Hint{Command: []string{"openssl", "speed", "-elapsed"}})
	if err != nil || len(runs) != 1 || len(runs[0].Points) != 1 || len(runs[0].Problems) != 0 {
		t.Fatalf("Parse = %+v, %v", runs, err)
	}
	if got, want := runs[0].Points[0].BytesPerSec, 900000*16384/3.0; got != want {
		t.Errorf("rate %v, want %v", got, want)
	}
}

// TestParseRefusesControlCharactersInNames: a NUL or an escape sequence in an algorithm name would make a
// separate series and reach a terminal; it is a Problem and gives no point.
func TestParseRefusesControlCharactersInNames(t *testing.T) {
	for _, tt := range []struct {
		name, text, want string
	}{
		{"NUL in a Doing line", "Doing aes\x00-128-cbc for 3s on 16 size blocks: 5 aes\x00-128-cbc's in 3.00s\n",
			`algorithm name "aes\x00-128-cbc" has control characters`},
		{"escape in -mr", "+DT:aes-128-cbc\x1b[31m:3:16\n+R:5:aes-128-cbc\x1b[31m:3.000000\n",
			`algorithm name "aes-128-cbc\x1b[31m" has control characters`},
		{"escape in a +F line", "+H:16\n+F:22:\x1b]0;pwned\x07:5.00\n", `has control characters`},
		{"escape in a curve", "+F6:0:253:Ed\x1b25519:1.0:2.0\n", `has control characters`},
		{"not UTF-8", "+DT:aes\xff:3:16\n+R:5:aes\xff:3.000000\n", `not UTF-8`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			runs, _ := Parse(tt.text, Hint{})
			var probs []string
			for _, r := range runs {
				for _, p := range r.Problems {
					probs = append(probs, p.Text)
				}
				for _, p := range r.Points {
					if speedBadName(p.Algorithm) != "" || speedBadName(p.Curve) != "" {
						t.Errorf("point kept: %+v", p)
					}
				}
			}
			if len(probs) == 0 || !strings.Contains(strings.Join(probs, "\n"), tt.want) {
				t.Errorf("problems %q, want one containing %q", probs, tt.want)
			}
		})
	}
}

// TestParseRealCapturesHaveNoProblems: no real capture meets the bounds.
func TestParseRealCapturesHaveNoProblems(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(speedFixtureDir, "*.txt"))
	if len(files) < 30 {
		t.Fatalf("%d captures in %s, want the 39 copied there", len(files), speedFixtureDir)
	}
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err != nil {
			t.Fatal(err)
		}
		runs, _ := Parse(string(b), Hint{})
		for _, r := range runs {
			if len(r.Problems) > 0 {
				t.Errorf("%s: %v", filepath.Base(fn), r.Problems)
			}
		}
	}
}
