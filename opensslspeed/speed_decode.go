package opensslspeed

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeText is r as UTF-8 text with '\n' line ends, whatever a capture was saved as: UTF-16 (with a byte
// order mark, as Windows' Notepad and PowerShell's redirection write, or without one when the text's every
// other byte is NUL) is transcoded, and a line ended by a lone '\r' (old Mac OS, some serial terminals' logs)
// gets a '\n'. Anything else passes through as it is. Memory stays bounded: it reads ahead a few hundred bytes.
func decodeText(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 4<<10)
	head, _ := br.Peek(256)
	var src io.Reader = br
	switch order := utf16Order(head); order {
	case littleEndian, bigEndian:
		if len(head) >= 2 && (head[0] == 0xff && head[1] == 0xfe || head[0] == 0xfe && head[1] == 0xff) {
			br.Discard(2)
		}
		src = &utf16Reader{r: br, big: order == bigEndian}
	}
	return &crReader{r: bufio.NewReaderSize(src, 32<<10)}
}

const (
	notUTF16 = iota
	littleEndian
	bigEndian
)

// utf16Order tells UTF-16 by its byte order mark, or, without one, by text whose every other byte is NUL (ASCII
// in UTF-16): at least 8 characters, all printable or white space.
func utf16Order(head []byte) int {
	if len(head) >= 2 {
		switch {
		case head[0] == 0xff && head[1] == 0xfe:
			return littleEndian
		case head[0] == 0xfe && head[1] == 0xff:
			return bigEndian
		}
	}
	n := len(head) &^ 1
	if n < 16 {
		return notUTF16
	}
	le, be := true, true
	for i := 0; i < n; i += 2 {
		lo, hi := head[i], head[i+1]
		le = le && hi == 0 && asciiText(lo)
		be = be && lo == 0 && asciiText(hi)
	}
	switch {
	case le:
		return littleEndian
	case be:
		return bigEndian
	}
	return notUTF16
}

func asciiText(b byte) bool { return b >= 0x20 && b < 0x7f || b == '\n' || b == '\r' || b == '\t' }

// utf16Reader transcodes UTF-16 to UTF-8; an unpaired surrogate or a lone last byte becomes U+FFFD.
type utf16Reader struct {
	r   *bufio.Reader
	big bool
	out []byte // transcoded, not yet returned
	err error
}

func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	n, err := io.ReadFull(u.r, b[:])
	if n == 1 {
		return utf8.RuneError, nil // a lone byte: the text was cut; the next read ends it
	}
	if err != nil {
		return 0, err
	}
	if u.big {
		return uint16(b[0])<<8 | uint16(b[1]), nil
	}
	return uint16(b[1])<<8 | uint16(b[0]), nil
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) < len(p) && u.err == nil && len(u.out) < 4<<10 {
		c, err := u.unit()
		if err != nil {
			u.err = err
			break
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			c2, err := u.unit()
			if err != nil {
				u.err = err
				r = utf8.RuneError
			} else if r = utf16.DecodeRune(r, rune(c2)); r == utf8.RuneError {
				u.out = utf8.AppendRune(u.out, utf8.RuneError)
				r = rune(c2)
				if utf16.IsSurrogate(r) {
					r = utf8.RuneError
				}
			}
		}
		u.out = utf8.AppendRune(u.out, r)
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	if n == 0 && u.err != nil {
		if u.err == io.ErrUnexpectedEOF {
			return 0, io.EOF
		}
		return 0, u.err
	}
	return n, nil
}

// crReader turns a '\r' that no '\n' follows into '\n', keeping "\r\n" as it is (the line reader drops the
// '\r' of a "\r\n").
type crReader struct {
	r *bufio.Reader
}

func (c *crReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	for i := bytes.IndexByte(p[:n], '\r'); i >= 0; {
		next := byte(0)
		if i+1 < n {
			next = p[i+1]
		} else if b, perr := c.r.Peek(1); perr == nil {
			next = b[0]
		}
		if next != '\n' {
			p[i] = '\n'
		}
		j := bytes.IndexByte(p[i+1:n], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return n, err
}
