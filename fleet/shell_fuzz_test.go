package fleet

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// FuzzShellOutput feeds the shell path's parsers what a hostile or broken board could print: the framing of its
// records (frameReader), the shell's times output (parseTimes) and a point's records (run). None may panic; a
// record's content is never longer than the limit, times are finite and non-negative, and a point read from the
// records has no negative CPU time.
func FuzzShellOutput(f *testing.F) {
	m := "@@" + testNonce + " "
	f.Add([]byte("\n" + m + "S b\n\n" + m + "F /proc/stat\ncpu 1 2 3 4 5 6 7 0 0 0\ncpu0 1 2 3 4 5 6 7 0 0 0\n\n" + m + "T\n0m0.01s 0m0.02s\n0m1.00s 0m0.50s\n" +
		"\n" + m + "Z\n\n" + m + "R\n+H:16\n+F:22:aes-128-cbc:1.5\n\n" + m + "X 0\n\n" + m + "S a\n\n" + m + "T\n0m0.01s 0m0.02s\n0m2.00s 0m0.70s\n\n" + m + "Z\n" +
		"\n" + m + "E\n\n" + m + "Q\n"))
	f.Add([]byte("0m 0.01s 0m 0.02s\n1m 2.50s 0m 3.10s\n"))
	f.Add([]byte("\n" + m + "X -1\n\n" + m + "V /proc/loadavg\n1 2 3\n" + m + "Q\n"))
	f.Add([]byte("banner\n" + m + "R\nno end"))
	f.Fuzz(func(t *testing.T, out []byte) {
		if tm, err := parseTimes(string(out)); err == nil {
			for _, v := range []float64{tm.selfUser, tm.selfSys, tm.kidsUser, tm.kidsSys} {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > maxTimesSeconds {
					t.Fatalf("parseTimes(%q) = %+v: a figure out of range", out, tm)
				}
			}
		}
		fr := newFrameReader(bytes.NewReader(out), testNonce)
		var recs []shellRecord
		for i := 0; ; i++ {
			r, err := fr.next()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, errFrame) {
					t.Fatalf("frameReader: %v, want EOF or errFrame", err)
				}
				break
			}
			if len(r.content) > maxRecordBytes {
				t.Fatalf("record %s of %d bytes", r.kind, len(r.content))
			}
			if strings.ContainsAny(r.kind, " \n") {
				t.Fatalf("record kind %q", r.kind)
			}
			recs = append(recs, r)
			if i > len(out)+2 {
				t.Fatalf("more records (%d) than bytes of output (%d)", i, len(out))
			}
		}
		s := &shellSession{board: "fuzz", mirror: t.TempDir()}
		run := s.run(recs)
		if run.UserS < 0 || run.SysS < 0 || math.IsNaN(run.UserS) || math.IsNaN(run.SysS) {
			t.Fatalf("run from %q: user %v sys %v", out, run.UserS, run.SysS)
		}
	})
}

// FuzzShellReadBack feeds the parser of the verification's files read back (B records of openssl base64 output)
// what a hostile board could print. It may not panic; a file it accepts was asked for, and decodes from exactly
// the base64 the board sent (Strict: no second spelling of the same bytes).
func FuzzShellReadBack(f *testing.F) {
	m := "@@" + testNonce + " "
	f.Add([]byte("\n" + m + "B /tmp/fleet-sh.1.00112233/out\nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKiss\nLS4v\n\n" + m + "Q\n"))
	f.Add([]byte("\n" + m + "B /tmp/fleet-sh.1.00112233/other\nQQ==\n\n" + m + "V b64\n/tmp/x\n" + m + "Q\n"))
	f.Add([]byte("QQ=\r\n="))
	f.Fuzz(func(t *testing.T, out []byte) {
		if b, err := decodeBase64Lines(out); err == nil {
			clean := strings.NewReplacer("\n", "", "\r", "").Replace(string(bytes.TrimSpace(out)))
			if got := base64.StdEncoding.EncodeToString(b); got != clean {
				t.Fatalf("decodeBase64Lines(%q) = %d bytes, which encode as %q", out, len(b), got)
			}
		}
		recs := framesOf(out)
		asked := []string{"/tmp/fleet-sh.1.00112233/out"}
		files, err := readBackFiles(recs, asked)
		if err != nil {
			return
		}
		for p, b := range files {
			if p != asked[0] {
				t.Fatalf("file %q accepted, not asked for", p)
			}
			if len(b) > maxRecordBytes {
				t.Fatalf("%d bytes from one record", len(b))
			}
		}
	})
}

// FuzzShellLoops feeds the parser of a concurrency check's records (loopsRun) what a hostile board could print.
// It may not panic; a run it accepts has no more workers than were started, each output one line, and a hung
// worker no exit of its own (its loop's exit is the kill's).
func FuzzShellLoops(f *testing.F) {
	m := "@@" + testNonce + " "
	d := "/tmp/fleet-sh.1.00112233"
	f.Add([]byte("\n" + m + "R\n\n" + m + "X 0\n\n" + m + "E\n\n" + m + "W 0\n\n" + m + "V " + d + "/cw0.rc\n0\n" + m + "F " + d + "/cw0.out\n" +
		strings.Repeat("ab", 32) + " *" + d + "/cw0.o\n\n" + m + "W 1\n\n" + m + "V " + d + "/cw1.pid\n123\n" + m + "Q\n"))
	f.Add([]byte("\n" + m + "X 137\n\n" + m + "W 0\n\n" + m + "V " + d + "/cw0.rc\nhash 1\n" + m + "F " + d + "/cw0.err\nboom\n" + m + "W 3\n" + m + "Q\n"))
	f.Add([]byte("\n" + m + "X 0\n\n" + m + "W 0\n\n" + m + "V " + d + "/cw0.rc\n0\n" + m + "F " + d + "/cw0.out\n@\r0\n" + m + "Q\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		recs := framesOf(out)
		s := &shellSession{board: "fuzz", dir: d}
		run := s.loopsRun(recs, 2, 2)
		if run.Err != nil {
			return
		}
		if len(run.Workers) > 2 {
			t.Fatalf("%d workers of 2", len(run.Workers))
		}
		for _, w := range run.Workers {
			if w.Hung && w.Exit != 0 {
				t.Fatalf("a hung worker with exit %d", w.Exit)
			}
			for _, l := range w.Outputs {
				if l == "" || strings.ContainsAny(l, "\r\n") {
					t.Fatalf("output line %q", l)
				}
			}
		}
	})
}

// framesOf is every record the frame reader takes from out before its first error (a fuzzed board's output).
func framesOf(out []byte) []shellRecord {
	fr := newFrameReader(bytes.NewReader(out), testNonce)
	var recs []shellRecord
	for {
		r, err := fr.next()
		if err != nil {
			return recs
		}
		recs = append(recs, r)
	}
}
