package fleet

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The shell path's output is one stream of records. Each starts with a marker line "@@NONCE KIND ARG" that the
// script prints after a newline of its own ("\n@@NONCE …"), so a record's content is exactly the bytes between its
// marker line and the newline before the next marker, whether or not the command's output ended in a newline.
// NONCE is random per session, so no output a command prints by chance is read as a marker.

// Record kinds the script prints.
const (
	recFile    = "F" // a multi-line file: ARG is its path on the board
	recValue   = "V" // a one-line file: ARG is its path, the content its value
	recTimes   = "T" // the output of the shell's times builtin
	recSample  = "S" // a sample starts: ARG b (before a command) or a (after it)
	recSampled = "Z" // the sample ends
	recRun     = "R" // the command starts; its stdout is the content
	recExit    = "X" // the command ended: ARG is its exit status
	recStderr  = "E" // the command's stderr
	recPath    = "P" // command -v openssl: ARG "-" when not found, the content the path
	recDevice  = "D" // /dev/crypto exists
	recBase64  = "B" // a file read back: ARG is its path, the content its base64 (openssl base64, 64 columns)
	recWorker  = "W" // the files of a concurrency check's worker follow: ARG is its number (shellloops.go)
	recDone    = "Q" // the request is complete
	recUnknown = ""
)

// Limits on what a board may send: a record's content, and the session's whole output between two requests.
const (
	maxRecordBytes  = 1 << 20
	maxRequestBytes = 8 << 20
)

// shellRecord is one record of the stream, with the time its marker arrived (the controller's clock: the wall
// time of a command is the time between its R and X markers).
type shellRecord struct {
	kind, arg string
	content   []byte
	at        time.Time
}

// frameReader reads records from a session's stdout.
type frameReader struct {
	r      *bufio.Reader
	marker []byte // "@@NONCE "
	now    func() time.Time
	cur    *shellRecord
	pend   bytes.Buffer
	total  int
}

func newFrameReader(r io.Reader, nonce string) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), marker: []byte("@@" + nonce + " "), now: time.Now}
}

// errFrame is output that breaks the framing: a record too large, a marker of no known kind or a bad exit status.
var errFrame = errors.New("shell path: malformed output")

// next returns the next complete record: the one whose content ends where the following marker starts. At the
// end of the stream the last record is returned with what it has, then io.EOF.
func (f *frameReader) next() (shellRecord, error) {
	for {
		if f.cur != nil && f.cur.kind == recDone {
			rec, _ := f.pending() // a Q marker has no content: the request it ends is complete now
			return rec, nil
		}
		line, err := f.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// a long line of content: keep it, unless it is more than a record may hold
			if err := f.add(line); err != nil {
				return shellRecord{}, err
			}
			continue
		}
		if len(line) > 0 && bytes.HasPrefix(line, f.marker) && line[len(line)-1] == '\n' {
			rec, ok, perr := f.startRecord(line)
			if perr != nil {
				return shellRecord{}, perr
			}
			if ok {
				return rec, nil
			}
			continue
		}
		if len(line) > 0 {
			if err := f.add(line); err != nil {
				return shellRecord{}, err
			}
		}
		if err != nil {
			if f.cur != nil {
				rec := f.finish()
				f.cur = nil
				return rec, nil
			}
			if errors.Is(err, io.EOF) {
				return shellRecord{}, io.EOF
			}
			return shellRecord{}, err
		}
	}
}

// add appends content to the record being read.
func (f *frameReader) add(b []byte) error {
	f.total += len(b)
	if f.total > maxRequestBytes {
		return fmt.Errorf("%w: more than %d bytes for one request", errFrame, maxRequestBytes)
	}
	if f.cur == nil {
		return nil // before the first marker: what a login script or a banner printed, which is not ours
	}
	if f.pend.Len()+len(b) > maxRecordBytes {
		return fmt.Errorf("%w: record %s %s is longer than %d bytes", errFrame, f.cur.kind, f.cur.arg, maxRecordBytes)
	}
	if f.total > maxRequestBytes {
		return fmt.Errorf("%w: more than %d bytes for one request", errFrame, maxRequestBytes)
	}
	f.pend.Write(b)
	return nil
}

// startRecord reads a marker line. It returns the record the marker ends (ok), if there was one.
func (f *frameReader) startRecord(line []byte) (shellRecord, bool, error) {
	body := strings.TrimRight(string(line[len(f.marker):]), "\r\n")
	kind, arg, _ := strings.Cut(body, " ")
	switch kind {
	case recFile, recValue, recTimes, recSample, recSampled, recRun, recExit, recStderr, recPath, recDevice, recBase64, recWorker, recDone:
	default:
		return shellRecord{}, false, fmt.Errorf("%w: unknown marker %q", errFrame, truncate(body, 80))
	}
	if kind == recExit {
		if _, err := strconv.Atoi(arg); err != nil {
			return shellRecord{}, false, fmt.Errorf("%w: exit status %q", errFrame, truncate(arg, 40))
		}
	}
	var done shellRecord
	had := f.cur != nil
	if had {
		done = f.finish()
	}
	f.cur = &shellRecord{kind: kind, arg: arg, at: f.now()}
	if kind == recDone {
		f.total = 0
	}
	return done, had, nil
}

// finish ends the current record: its content without the newline the next marker's printf began with.
func (f *frameReader) finish() shellRecord {
	rec := *f.cur
	b := f.pend.Bytes()
	b = bytes.TrimSuffix(b, []byte("\n"))
	rec.content = append([]byte(nil), b...)
	f.pend.Reset()
	return rec
}

// pending returns the record whose marker was read last, and forgets it.
func (f *frameReader) pending() (shellRecord, bool) {
	if f.cur == nil {
		return shellRecord{}, false
	}
	rec := f.finish()
	f.cur = nil
	return rec, true
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
