package opensslspeed

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
)

func encodeUTF16(s string, big, bom bool) []byte {
	var b bytes.Buffer
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xfeff}, units...)
	}
	for _, u := range units {
		if big {
			b.Write([]byte{byte(u >> 8), byte(u)})
		} else {
			b.Write([]byte{byte(u), byte(u >> 8)})
		}
	}
	return b.Bytes()
}

// TestCapturesInOtherEncodings: a capture saved as UTF-16 (either byte order, with or without a byte order
// mark) or with lone '\r' line ends gives the same runs, on the same lines, as the capture itself.
func TestCapturesInOtherEncodings(t *testing.T) {
	raw, err := os.ReadFile("testdata/captures/01_rpi1-armv6-raspbian-1.0.1e-full.txt")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(raw), "\r\n", "\n")
	want, err := Parse(text, Hint{})
	if err != nil || len(want) == 0 || len(want[0].Points) == 0 {
		t.Fatalf("the capture itself: %d runs, %v", len(want), err)
	}
	for name, data := range map[string][]byte{
		"utf-16le bom":    encodeUTF16(text, false, true),
		"utf-16be bom":    encodeUTF16(text, true, true),
		"utf-16le no bom": encodeUTF16(text, false, false),
		"utf-16be no bom": encodeUTF16(text, true, false),
		"utf-8 bom":       []byte("\ufeff" + text),
		"cr line ends":    []byte(strings.ReplaceAll(text, "\n", "\r")),
		"crlf line ends":  []byte(strings.ReplaceAll(text, "\n", "\r\n")),
		"utf-16le cr":     encodeUTF16(strings.ReplaceAll(text, "\n", "\r"), false, true),
	} {
		got, err := Parse(string(data), Hint{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d runs (%d points), want %d runs (%d points) as the capture itself", name, len(got), points(got), len(want), points(want))
		}
	}
}

func points(runs []Run) (n int) {
	for _, r := range runs {
		n += len(r.Points)
	}
	return n
}

// TestUTF32IsRefusedByName: a capture saved as UTF-32 is not read, and the error says which encoding it is.
func TestUTF32IsRefusedByName(t *testing.T) {
	text := "$ openssl speed -elapsed sha256\nDoing sha256 for 3s on 16 size blocks: 5000 sha256's in 3.00s\n"
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"le bom":    {utf32(text, false, true), "UTF-32LE"},
		"be bom":    {utf32(text, true, true), "UTF-32BE"},
		"le no bom": {utf32(text, false, false), "UTF-32LE"},
		"be no bom": {utf32(text, true, false), "UTF-32BE"},
	} {
		runs, err := Parse(string(c.data), Hint{})
		if !errors.Is(err, ErrEncoding) || !strings.Contains(err.Error(), c.want) || len(runs) != 0 {
			t.Errorf("%s: Parse = %d runs, %v; want ErrEncoding naming %s", name, len(runs), err, c.want)
		}
	}
}

func utf32(s string, big, bom bool) []byte {
	if bom {
		s = "\ufeff" + s
	}
	var b []byte
	for _, r := range s {
		if big {
			b = append(b, byte(r>>24), byte(r>>16), byte(r>>8), byte(r))
		} else {
			b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
		}
	}
	return b
}

// FuzzDecodeText: any bytes decode without a panic, and but for UTF-32 without an error, to text with no lone
// '\r'; the same text fed one byte at a time (as a terminal or a pipe may give it) decodes the same, so the
// encoding the decoder tells does not depend on how much a read returned; UTF-8 text without a byte order mark
// and without a lone '\r' passes unchanged.
func FuzzDecodeText(f *testing.F) {
	f.Add([]byte("type 16 bytes\nsha256 1.0k\n"))
	f.Add(encodeUTF16("type 16 bytes\r\n", false, true))
	f.Add(encodeUTF16("type 16 bytes\r\n", true, false))
	f.Add([]byte("a\rb\r\nc\r"))
	f.Add([]byte{0xff, 0xfe, 0x00, 0xd8, 0x41})
	f.Add([]byte{0xff, 0xfe, 0x00, 0x00, 0x41, 0, 0, 0})
	f.Add([]byte("\xef\xbb\xbfDoing sha256\r"))
	f.Add([]byte("a\x00\nb"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := io.ReadAll(DecodeText(bytes.NewReader(data)))
		if err != nil && !errors.Is(err, ErrEncoding) {
			t.Fatal(err)
		}
		if i := loneCR(out); i >= 0 {
			t.Fatalf("lone \\r at %d in %q", i, out)
		}
		slow, slowErr := io.ReadAll(DecodeText(iotest.OneByteReader(bytes.NewReader(data))))
		if !bytes.Equal(slow, out) || (slowErr == nil) != (err == nil) {
			t.Fatalf("one byte at a time: %q, %v; read at once: %q, %v", slow, slowErr, out, err)
		}
		if enc, bom := sniffEncoding(data, true); enc == encUTF8 && bom == 0 && loneCR(data) < 0 && !bytes.Equal(out, data) {
			t.Fatalf("DecodeText(%q) = %q, want it unchanged", data, out)
		}
	})
}

// loneCR is the index of the first '\r' no '\n' follows in b, or -1.
func loneCR(b []byte) int {
	for i, c := range b {
		if c == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			return i
		}
	}
	return -1
}

// TestDecodedStreamsGiveRunsAsTheyEnd: a capture in UTF-16 or with lone '\r' line ends, written to a pipe one
// line at a time as a program's output comes, gives each run after reading the same lines as the capture itself
// read by the parser with no decoder at all: the decoder never waits for bytes past a line end (a byte order
// mark, a NUL pattern, the '\n' that may follow a '\r'), so every run but the last arrives while the writer is
// still writing, before it closes.
func TestDecodedStreamsGiveRunsAsTheyEnd(t *testing.T) {
	text := strings.ReplaceAll(readSpeedFixture(t, "17"), "\r\n", "\n")
	var plain []string
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" {
			plain = append(plain, l)
		}
	}
	want, wantReads := scanStream(t, plain, false, func(l string, first bool) []byte { return []byte(l) })
	if len(want) < 3 {
		t.Fatalf("the capture itself: %d runs, want 3", len(want))
	}
	for i := range len(want) - 1 {
		if wantReads[i] >= len(plain) {
			t.Fatalf("the capture itself: run %d after all %d lines: the test shows nothing", i+1, len(plain))
		}
	}
	for name, enc := range map[string]func(l string, first bool) []byte{
		"utf-16le bom": func(l string, first bool) []byte { return encodeUTF16(l, false, first) },
		"utf-16be":     func(l string, _ bool) []byte { return encodeUTF16(l, true, false) },
		"cr":           func(l string, _ bool) []byte { return []byte(strings.ReplaceAll(l, "\n", "\r")) },
		"crlf":         func(l string, _ bool) []byte { return []byte(strings.ReplaceAll(l, "\n", "\r\n")) },
		"utf-16le cr": func(l string, first bool) []byte {
			return encodeUTF16(strings.ReplaceAll(l, "\n", "\r"), false, first)
		},
	} {
		got, reads := scanStream(t, plain, true, enc)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %d runs (%d points), want %d runs (%d points) as the capture itself", name, len(got), points(got), len(want), points(want))
		}
		if !reflect.DeepEqual(reads, wantReads) {
			t.Errorf("%s: the runs came after reading %v of %d lines, want %v as the capture itself", name, reads, len(plain), wantReads)
		}
	}
}

// scanStream scans lines, each encoded by enc and written to a pipe on its own, through NewScanner (decode) or
// the parser with no decoder, and returns the runs and how many lines had been read when each came.
func scanStream(t *testing.T, lines []string, decode bool, enc func(l string, first bool) []byte) ([]Run, []int) {
	t.Helper()
	pr, pw := io.Pipe()
	defer pr.Close()
	go func() {
		for i, l := range lines {
			if _, err := pw.Write(enc(l, i == 0)); err != nil {
				return
			}
		}
		pw.Close()
	}()
	c := &lineReads{r: pr}
	s := NewScanner(c, Hint{})
	if !decode {
		s.lines = &speedLines{r: bufio.NewReaderSize(c, 32<<10)}
	}
	var runs []Run
	var reads []int
	for s.Scan() {
		runs, reads = append(runs, s.Run()), append(reads, c.n)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return runs, reads
}

// lineReads counts the reads that returned bytes: from a pipe written one line at a time, the lines read.
type lineReads struct {
	r io.Reader
	n int
}

func (c *lineReads) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.n++
	}
	return n, err
}

// TestBOMlessUTF16StartingWithNonASCII: a capture saved as UTF-16 without a byte order mark whose first line
// is not ASCII (a terminal's prompt with box drawing or CJK, a bullet, an accented host name) is told as UTF-16
// from its majority of ASCII characters with a NUL byte, and gives the runs of the same text saved as UTF-8;
// the UTF-8 text itself is still read as UTF-8.
func TestBOMlessUTF16StartingWithNonASCII(t *testing.T) {
	raw, err := os.ReadFile("testdata/captures/01_rpi1-armv6-raspbian-1.0.1e-full.txt")
	if err != nil {
		t.Fatal(err)
	}
	body := strings.ReplaceAll(string(raw), "\r\n", "\n")
	for _, prefix := range []string{
		"┌──(kali㉿kali)-[~]\n└─$ ",
		"用户@主机:~$ ",
		"➜  ~ ",
		"• ",
		"é\n",
		"Ünïcödé höst: ",
		"λ ",
		"🚀 ",
		"─────\n",
		"测试板的加密性能报告，一夜之间的所有结果都在这里了\n",
	} {
		text := prefix + body
		want, err := Parse(text, Hint{})
		if err != nil || len(want) == 0 || len(want[0].Points) == 0 {
			t.Fatalf("%q as UTF-8: %d runs, %v", prefix, len(want), err)
		}
		for _, big := range []bool{false, true} {
			data := encodeUTF16(text, big, false)
			got, err := Parse(string(data), Hint{})
			if err != nil {
				t.Errorf("%q as UTF-16 (big endian %v) without a byte order mark: %v", prefix, big, err)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q as UTF-16 (big endian %v) without a byte order mark: %d runs (%d points), want %d runs (%d points)", prefix, big, len(got), points(got), len(want), points(want))
			}
		}
	}
	for _, utf8Text := range []string{"┌──(kali㉿kali)-[~]\n", "用户@主机:~$ openssl speed\n", "ab\n", "é", "abcdefghijklmnopqrstuvwxyz0123456789",
		strings.Repeat("─", 60) + "\n", strings.Repeat("x", 300)} {
		if enc, _ := sniffEncoding([]byte(utf8Text), true); enc != encUTF8 {
			t.Errorf("%q: told as %v, want UTF-8", utf8Text, enc)
		}
	}
}
