package agent

import (
	"errors"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// The two forms of the kernel log the agent reads: /dev/kmsg records and `dmesg -r` lines. Both parsers take what
// the board printed and never trust it: a malformed record is an error, a long text is cut.

var errKmsgRecord = errors.New("malformed /dev/kmsg record")

// parseKmsgRecord parses one /dev/kmsg record (Documentation/ABI/testing/dev-kmsg):
//
//	PRIVAL,SEQ,USEC,FLAGS[,MORE];MESSAGE\n[ KEY=VALUE\n]...
//
// PRIVAL holds the facility in its upper bits and the level in the lower three. The dictionary lines after the
// message (SUBSYSTEM=, DEVICE=) are dropped; non-printable bytes in MESSAGE arrive escaped as \xNN.
func parseKmsgRecord(rec []byte) (protocol.KernelLine, error) {
	s := string(rec)
	head, msg, ok := strings.Cut(s, ";")
	if !ok {
		return protocol.KernelLine{}, errKmsgRecord
	}
	fields := strings.Split(head, ",")
	if len(fields) < 4 {
		return protocol.KernelLine{}, errKmsgRecord
	}
	prival, err1 := strconv.ParseInt(fields[0], 10, 32)
	seq, err2 := strconv.ParseInt(fields[1], 10, 64)
	usec, err3 := strconv.ParseInt(fields[2], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || prival < 0 || seq < 0 || usec < 0 {
		return protocol.KernelLine{}, errKmsgRecord
	}
	msg, _, _ = strings.Cut(msg, "\n")
	l := protocol.KernelLine{Seq: seq, Level: int(prival & 7), Usec: usec}
	l.Text, l.Cut = cutKernelText(msg)
	return l, nil
}

// parseDmesgLine parses one line of `dmesg -r` (util-linux and busybox): "<6>[    8.041497] text", where the
// level and the timestamp are each optional (a kernel without CONFIG_PRINTK_TIME prints none). ok is false for
// an empty line.
func parseDmesgLine(line string) (protocol.KernelLine, bool) {
	line = strings.TrimRight(line, "\r\n")
	l := protocol.KernelLine{Level: -1}
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
		return protocol.KernelLine{}, false
	}
	l.Text, l.Cut = cutKernelText(line)
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

// cutKernelText bounds a message to protocol.MaxKernelLineBytes without splitting a UTF-8 sequence, and turns
// control characters into spaces (a line stays one line wherever it is shown).
func cutKernelText(s string) (string, bool) {
	cut := false
	if len(s) > protocol.MaxKernelLineBytes {
		n := protocol.MaxKernelLineBytes
		for n > 0 && s[n]&0xC0 == 0x80 {
			n--
		}
		s, cut = s[:n], true
	}
	s = strings.ToValidUTF8(s, "?")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s), cut
}
