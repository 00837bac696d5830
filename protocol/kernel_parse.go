package protocol

import (
	"errors"
	"strconv"
	"strings"
)

// The two forms of the kernel log the agent reads (and pstore keeps): /dev/kmsg records and `dmesg -r` lines. Both parsers take what
// the board printed and never trust it: a malformed record is an error, a long text is cut.

// ErrKmsgRecord is a /dev/kmsg record ParseKmsgRecord cannot read.
var ErrKmsgRecord = errors.New("malformed /dev/kmsg record")

// ParseKmsgRecord parses one /dev/kmsg record (Documentation/ABI/testing/dev-kmsg):
//
//	PRIVAL,SEQ,USEC,FLAGS[,MORE];MESSAGE\n[ KEY=VALUE\n]...
//
// PRIVAL holds the facility in its upper bits and the level in the lower three. The dictionary lines after the
// message (SUBSYSTEM=, DEVICE=) are dropped; non-printable bytes in MESSAGE arrive escaped as \xNN.
func ParseKmsgRecord(rec []byte) (KernelLine, error) {
	s := string(rec)
	head, msg, ok := strings.Cut(s, ";")
	if !ok {
		return KernelLine{}, ErrKmsgRecord
	}
	fields := strings.Split(head, ",")
	if len(fields) < 4 {
		return KernelLine{}, ErrKmsgRecord
	}
	prival, err1 := strconv.ParseInt(fields[0], 10, 32)
	seq, err2 := strconv.ParseInt(fields[1], 10, 64)
	usec, err3 := strconv.ParseInt(fields[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || prival < 0 || seq < 0 || usec < 0 {
		return KernelLine{}, ErrKmsgRecord
	}
	msg, _, _ = strings.Cut(msg, "\n")
	l := KernelLine{Seq: seq, Level: int(prival & 7), Usec: usec}
	l.Text, l.Cut = CutKernelText(msg)
	return l, nil
}

// ParseDmesgLine parses one line of `dmesg -r` (util-linux and busybox): "<6>[    8.041497] text", where the
// level and the timestamp are each optional (a kernel without CONFIG_PRINTK_TIME prints none). ok is false for
// an empty line.
func ParseDmesgLine(line string) (KernelLine, bool) {
	line = strings.TrimRight(line, "\r\n")
	l := KernelLine{Level: -1}
	if rest, ok := strings.CutPrefix(line, "<"); ok {
		if num, after, ok := strings.Cut(rest, ">"); ok {
			if v, err := strconv.ParseInt(num, 10, 32); err == nil && v >= 0 {
				l.Level, line = int(v&7), after
			}
		}
	}
	if rest, ok := strings.CutPrefix(line, "["); ok {
		if ts, after, ok := strings.Cut(rest, "]"); ok {
			if us, ok := parseDmesgTime(strings.TrimSpace(ts)); ok {
				l.Usec, line = us, strings.TrimPrefix(after, " ")
			}
		}
	}
	if strings.TrimSpace(line) == "" {
		return KernelLine{}, false
	}
	l.Text, l.Cut = CutKernelText(line)
	return l, true
}

// parseDmesgTime reads "8.041497" (seconds with up to 9 decimals) as microseconds.
func parseDmesgTime(s string) (int64, bool) {
	sec, frac, _ := strings.Cut(s, ".")
	if sec == "" || len(sec) > 12 || len(frac) > 9 {
		return 0, false
	}
	whole, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || whole < 0 {
		return 0, false
	}
	frac = (frac + "000000")[:6]
	us, err := strconv.ParseInt(frac, 10, 64)
	if err != nil || us < 0 {
		return 0, false
	}
	return whole*1e6 + us, true
}

// CutKernelText bounds a message to MaxKernelLineBytes without splitting a UTF-8 sequence, and turns control
// characters into spaces (a line stays one line wherever it is shown).
func CutKernelText(s string) (string, bool) {
	// strings.Map passes invalid bytes as utf8.RuneError and writes U+FFFD for them: the result is valid UTF-8,
	// and may be longer than s, so it is cut after.
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) <= MaxKernelLineBytes {
		return s, false
	}
	n := MaxKernelLineBytes
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n], true
}
