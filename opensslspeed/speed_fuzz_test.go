package opensslspeed

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzParseSpeed(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(speedFixtureDir, "*.txt"))
	if len(files) < 30 {
		f.Fatalf("seed corpus: %d captures in %s, want the 39 copied there", len(files), speedFixtureDir)
	}
	for _, fn := range files {
		b, err := os.ReadFile(fn)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), "")
		f.Add(string(b), "openssl speed -multi 2 -mr -seconds 1 -bytes 1500 -evp aes-128-cbc")
	}
	// edge cases the fixtures do not have
	f.Add("Doing aes-128-cbc for 3s on 16 size blocks: 5 aes-128-cbc's in 0.00s\n", "openssl speed -elapsed")
	f.Add("Doing aes-128-cbc for 3s on 16 size blocks: 5 aes-128-cbc's in 0.00s\n", "")
	f.Add("+DT:x:0:16\n+R:9:x:0.000000\n+H:16\n+F:1:x:inf\n", "")
	f.Add("+F2:0:2048:0.000000:0.500000\n+F5:3:256:0:0\n+F6:0:253:Ed25519:1e308:1e308\n", "")
	f.Add("Got: +F:25:evp:1.00:2.00 from 65535\nForked child 99999\n", "openssl speed -multi 0 -evp ''")
	f.Add("type 16 bytes\nrsa 0.00k\nmd5 1e400k\n", "")
	f.Add(string(utf32("Doing md5 for 3s on 16 size blocks: 5 md5's in 3.00s\n", false, true)), "") // refused by name, ErrEncoding
	f.Fuzz(func(t *testing.T, text, cmd string) {
		runs, err := Parse(text, Hint{Command: strings.Fields(cmd), Seconds: 1})
		if err != nil {
			if !(errors.Is(err, ErrNotFound) || errors.Is(err, ErrEncoding)) || runs != nil {
				t.Fatalf("Parse = %d runs, %v", len(runs), err)
			}
			return
		}
		if len(runs) == 0 {
			t.Fatal("no runs and no error")
		}
		// the lines the parser numbers: those of the decoded text, where a lone CR ends a line too
		decoded, err := io.ReadAll(DecodeText(strings.NewReader(text)))
		if err != nil {
			t.Fatalf("Parse read the text, DecodeText refuses it: %v", err)
		}
		lines := strings.Count(string(decoded), "\n") + 1
		for _, r := range runs {
			if r.Line < 1 || r.Line > lines {
				t.Fatalf("run line %d outside 1..%d", r.Line, lines)
			}
			if r.Threads < 1 || (r.Timing != "wall" && r.Timing != "cpu") || r.Mode == "" {
				t.Fatalf("run threads %d, timing %q, mode %q", r.Threads, r.Timing, r.Mode)
			}
			for _, p := range r.Points {
				checkSpeedPoint(t, p)
				if p.Line < 1 || p.Line > lines {
					t.Fatalf("point line %d outside 1..%d", p.Line, lines)
				}
				if r.Failed != "" && !p.Failed {
					t.Fatalf("run failed (%s) but point %+v is not", r.Failed, p)
				}
			}
		}
	})
}
