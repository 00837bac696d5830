package opensslspeed

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrEncoding means a capture is saved in a text encoding the parser does not read (UTF-32); the error that
// wraps it names the encoding.
var ErrEncoding = errors.New("an encoding not read")

// DecodeText is r as UTF-8 text with "\n" or "\r\n" line ends, whatever a capture was saved as: UTF-16 (with a
// byte order mark, as Windows PowerShell's `>` and Notepad write it, or without one when the text's every other
// byte is NUL, or its ASCII characters, each with a NUL byte, are most of its first ones or end its first line)
// is transcoded, a UTF-8 byte order mark is dropped, and a lone '\r' ending a line (old Mac OS, some terminal
// loggers) gets its '\n'. Anything else, "\r\n" included, passes through as it is, so that the text
// kept as a run's raw output is the capture's own. UTF-32 is refused with an error wrapping ErrEncoding that
// names it.
//
// It never waits for more input than a line reader would: the encoding is told from the bytes the first reads
// returned (a byte order mark, or the NUL pattern of 8 ASCII characters or of 16 mixed ones, or of fewer when a
// line end or the end of the text comes first), never from a fixed look-ahead, and a '\r' is a line end at once: it is given as
// "\r\n", and a '\n' right after it is dropped when it comes, not waited for. So a capture streamed through a
// pipe gives each line as soon as its line end is written (TestDecodedStreamsGiveRunsAsTheyEnd).
func DecodeText(r io.Reader) io.Reader { return &textDecoder{r: r} }

type textEncoding int

const (
	encUndecided textEncoding = iota
	encUTF8
	encUTF16LE
	encUTF16BE
	encUTF32LE
	encUTF32BE
)

func (e textEncoding) String() string {
	return [...]string{"undecided", "UTF-8", "UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE"}[e]
}

// textBOMs are the byte order marks told, longest first: FF FE starts both UTF-16LE's and UTF-32LE's.
var textBOMs = []struct {
	bom string
	enc textEncoding
}{
	{"\x00\x00\xfe\xff", encUTF32BE},
	{"\xff\xfe\x00\x00", encUTF32LE},
	{"\xef\xbb\xbf", encUTF8},
	{"\xff\xfe", encUTF16LE},
	{"\xfe\xff", encUTF16BE},
}

// sniffUnits is how many characters of NUL pattern tell UTF-16 (or UTF-32) without a byte order mark when no
// line end came before them.
const sniffUnits = 8

// sniffEncoding tells the encoding of a text from its first bytes, and the length of its byte order mark. It
// returns encUndecided when head could still be either and more input is worth waiting for: never when final
// (the text ended) nor once head holds a line end. The decision is the one of head's shortest prefix that
// decides, so it does not depend on how much each read returned: a text fed one byte at a time decodes as the
// whole text read at once (FuzzDecodeText). A prefix decides within 256 bytes.
func sniffEncoding(head []byte, final bool) (textEncoding, int) {
	for k := range len(head) {
		if enc, bom := sniffPrefix(head[:k], false); enc != encUndecided {
			return enc, bom
		}
	}
	return sniffPrefix(head, final)
}

func sniffPrefix(head []byte, final bool) (textEncoding, int) {
	for _, m := range textBOMs {
		if bytes.HasPrefix(head, []byte(m.bom)) {
			return m.enc, len(m.bom)
		}
		if !final && bytes.HasPrefix([]byte(m.bom), head) {
			return encUndecided, 0
		}
	}
	le16, be16, le32, be32 := true, true, true, true
	var le, be unitTally
	for i := 0; i+1 < len(head); i += 2 {
		lo, hi := head[i], head[i+1]
		le16 = le16 && hi == 0 && asciiText(lo)
		be16 = be16 && lo == 0 && asciiText(hi)
		le.add(lo, hi)
		be.add(hi, lo)
	}
	for i := 0; i+3 < len(head); i += 4 {
		zero := head[i+1] == 0 && head[i+2] == 0
		le32 = le32 && zero && head[i+3] == 0 && asciiText(head[i])
		be32 = be32 && zero && head[i] == 0 && asciiText(head[i+3])
	}
	units16, units32 := len(head)/2, len(head)/4
	// The end of the text or a line end decides with what there is: a line reader would not wait either (but
	// for the NUL of what may be a UTF-16LE line end, see settledLineEnd).
	decide := final || settledLineEnd(head)
	switch {
	case le16 && (units16 >= sniffUnits || decide && units16 > 0):
		return encUTF16LE, 0
	case be16 && (units16 >= sniffUnits || decide && units16 > 0):
		return encUTF16BE, 0
	case le32 && (units32 >= sniffUnits || decide && units32 > 0):
		return encUTF32LE, 0
	case be32 && (units32 >= sniffUnits || decide && units32 > 0):
		return encUTF32BE, 0
	case !decide && (le16 || be16 || le32 || be32):
		return encUndecided, 0
	}
	// UTF-16 whose first characters are not all ASCII (a prompt with box drawing or CJK, a bullet, an accented
	// name): told by its ASCII characters, each with a NUL byte that UTF-8 text never has, once they are the
	// majority of mixedUnits characters or one of them is a line end. A line end read with its NUL tells the byte
	// order of a text both could be ("─────\n" is "%%%%%" and a line end in the other byte order).
	// Characters too few of which are ASCII (a CJK line) say nothing yet: wait for the line end, up to
	// maxMixedUnits characters.
	decide16 := decide || units16 >= mixedUnits && (le.utf16() || be.utf16()) || units16 >= maxMixedUnits
	switch {
	case decide16 && le.utf16() && (le.line || !be.line || !be.utf16()):
		return encUTF16LE, 0
	case decide16 && be.utf16():
		return encUTF16BE, 0
	case !decide16 && (!le.bad || !be.bad):
		return encUndecided, 0
	}
	return encUTF8, 0
}

// mixedUnits is how many characters tell UTF-16 without a byte order mark when not all of them are ASCII and no
// line end came before them.
const mixedUnits = 16

// maxMixedUnits is how many characters at most are read waiting for a line end when too few of those read are
// ASCII to tell.
const maxMixedUnits = 128

// unitTally counts a text's 16-bit units read in one byte order.
type unitTally struct {
	ascii, other int  // ASCII text characters (their other byte NUL), and any other characters
	line         bool // one of the ASCII ones is '\n' or '\r'
	bad          bool // a unit that is no text character: NUL, or a control character other than tab, line ends and ESC
}

func (t *unitTally) add(lo, hi byte) {
	switch {
	case hi != 0 || lo >= 0xa0 || lo == 0x1b:
		t.other++
	case asciiText(lo):
		t.ascii++
		t.line = t.line || lo == '\n' || lo == '\r'
	default:
		t.bad = true
	}
}

// utf16 reports whether the units read are UTF-16 text: no unit that is not a character, and a line end or a
// majority of ASCII characters, each with its NUL byte.
func (t unitTally) utf16() bool { return !t.bad && t.ascii > 0 && (t.line || t.ascii > t.other) }

// settledLineEnd reports whether head holds a '\n' or '\r' that is not its last byte at an even offset: that
// one could be the first byte of a UTF-16LE line end, and its next byte (NUL or not) tells the byte order of
// a text such as "─────\n" (U+2500 is 00 25 in UTF-16LE, "%" in UTF-16BE). So a line end waits for one more
// byte at most.
func settledLineEnd(head []byte) bool {
	for i, b := range head {
		if (b == '\n' || b == '\r') && !(i%2 == 0 && i == len(head)-1) {
			return true
		}
	}
	return false
}

func asciiText(b byte) bool { return b >= 0x20 && b < 0x7f || b == '\n' || b == '\r' || b == '\t' }

// textDecoder is DecodeText's reader.
type textDecoder struct {
	r      io.Reader
	enc    textEncoding
	buf    []byte // what in is read into
	in     []byte // read, not yet decoded: the bytes read while telling the encoding, or part of a character
	out    []byte // decoded, not yet returned
	obuf   []byte // what out is decoded into
	lastCR bool   // the last character decoded was a '\r', given as "\r\n": a '\n' right after it is dropped
	err    error  // r's error, returned once in and out are drained
}

func (d *textDecoder) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(d.out) == 0 {
		if d.enc == encUTF32LE || d.enc == encUTF32BE {
			return 0, d.err
		}
		if d.enc == encUndecided {
			enc, bom := sniffEncoding(d.in, d.err != nil)
			switch enc {
			case encUndecided:
				d.fill()
				continue
			case encUTF32LE, encUTF32BE:
				d.enc, d.in, d.out = enc, nil, nil
				d.err = fmt.Errorf("the text is %s, %w: save the capture as UTF-8 or UTF-16", enc, ErrEncoding)
				return 0, d.err
			}
			d.enc, d.in = enc, d.in[bom:]
		}
		d.decode(d.err != nil)
		if len(d.out) > 0 {
			break
		}
		if d.err != nil {
			return 0, d.err
		}
		d.fill()
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}

// fill reads from r, once it returns something, after what in holds.
func (d *textDecoder) fill() {
	if d.err != nil {
		return
	}
	if d.buf == nil {
		d.buf = make([]byte, 32<<10)
	}
	n := copy(d.buf, d.in)
	for range 100 { // as bufio.Reader: a reader that keeps returning nothing is broken, not slow
		m, err := d.r.Read(d.buf[n:])
		d.in, d.err = d.buf[:n+m], err
		if m > 0 || err != nil {
			return
		}
	}
	d.err = io.ErrNoProgress
}

// decode moves what in holds to out, but for the bytes of a character not read whole yet; final (r ended)
// decodes those too, as U+FFFD.
func (d *textDecoder) decode(final bool) {
	d.out = d.obuf[:0]
	defer func() { d.obuf = d.out[:0] }()
	if d.enc == encUTF8 {
		for _, b := range d.in {
			d.char(rune(b), b)
		}
		d.in = d.in[:0]
		return
	}
	in := d.in
	for len(in) >= 2 {
		u := d.unit(in)
		switch {
		case utf16.IsSurrogate(rune(u)) && u < 0xdc00: // a high surrogate: its pair follows
			if len(in) < 4 {
				if !final {
					d.in = in
					return
				}
				d.char(utf8.RuneError, 0)
				in = in[2:]
				continue
			}
			if r := utf16.DecodeRune(rune(u), rune(d.unit(in[2:]))); r != utf8.RuneError {
				d.char(r, 0)
				in = in[4:]
				continue
			}
			d.char(utf8.RuneError, 0) // unpaired: the next unit is read on its own
		case utf16.IsSurrogate(rune(u)):
			d.char(utf8.RuneError, 0)
		default:
			d.char(rune(u), 0)
		}
		in = in[2:]
	}
	if len(in) == 1 && final { // a lone last byte: the text was cut
		d.char(utf8.RuneError, 0)
		in = in[1:]
	}
	d.in = in
}

func (d *textDecoder) unit(b []byte) uint16 {
	if d.enc == encUTF16BE {
		return uint16(b[0])<<8 | uint16(b[1])
	}
	return uint16(b[1])<<8 | uint16(b[0])
}

// char appends one decoded character to out: r, or, in UTF-8, the byte b as it is (a byte of a multi-byte
// character or an invalid byte passes unchanged); '\r' becomes "\r\n" and a '\n' right after a '\r' is dropped.
func (d *textDecoder) char(r rune, b byte) {
	cr := d.lastCR
	d.lastCR = r == '\r'
	switch {
	case r == '\n' && cr:
	case r == '\r':
		d.out = append(d.out, '\r', '\n')
	case d.enc == encUTF8:
		d.out = append(d.out, b)
	default:
		d.out = utf8.AppendRune(d.out, r)
	}
}
