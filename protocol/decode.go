package protocol

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Protocol errors the controller decides on.
var (
	ErrLineTooLong     = errors.New("protocol line too long")
	ErrUnknownProtocol = errors.New("unknown agent protocol version")
	ErrBadMessage      = errors.New("malformed agent message")
)

// Decoder reads protocol lines, capping their length and validating values.
type Decoder struct {
	r    *bufio.Reader
	line int
}

// NewDecoder returns a Decoder reading from r.
// The reader's buffer is small (lines are usually under 2 KB; longer ones are assembled up to MaxLineBytes): a
// controller holds one per board (seen: 34 MB of 64 KiB buffers with 500 boards).
func NewDecoder(r io.Reader) *Decoder { return &Decoder{r: bufio.NewReaderSize(r, 4<<10)} }

// Line is the number of the last line read.
func (d *Decoder) Line() int { return d.line }

// Next returns the next message; io.EOF at the end. An error names the line it comes from ("line 3: …"), so
// that a user can find the line in the agent's raw output.
func (d *Decoder) Next() (Message, error) {
	line, err := d.readLine()
	if err != nil {
		return Message{}, err
	}
	m, err := DecodeLine(line)
	if err != nil {
		return Message{}, fmt.Errorf("line %d: %w", d.line, err)
	}
	return m, nil
}

func (d *Decoder) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLineBytes {
			// drain the rest of this line so the stream stays usable
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = d.r.ReadSlice('\n')
			}
			d.line++
			return nil, fmt.Errorf("line %d: %w (limit %d bytes)", d.line, ErrLineTooLong, MaxLineBytes)
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(buf) > 0 {
			d.line++
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		d.line++
		return buf, nil
	}
}

// DecodeLine decodes and validates one protocol line.
func DecodeLine(line []byte) (Message, error) {
	if !utf8.Valid(line) {
		return Message{}, fmt.Errorf("%w: invalid UTF-8", ErrBadMessage)
	}
	var head struct {
		Type string `json:"type"`
		Msg  string `json:"msg"`
	}
	if err := DecodeJSON(line, &head); err != nil {
		return Message{}, fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	m := Message{Type: head.Type}
	if head.Type == TypeError {
		m.Error = head.Msg
		return m, nil
	}
	target := m.newBody()
	if target == nil {
		return Message{}, fmt.Errorf("%w: unknown type %q", ErrBadMessage, head.Type)
	}
	if err := DecodeJSON(line, target); err != nil {
		return Message{}, fmt.Errorf("%w: %s: %v", ErrBadMessage, head.Type, err)
	}
	if err := m.validate(); err != nil {
		return Message{}, err
	}
	return m, nil
}

// newBody gives m the empty body of its type and returns it for the line to be decoded into; nil for a type
// with no body of its own (an error line's message is in the head) or one this controller does not know.
func (m *Message) newBody() any {
	switch m.Type {
	case TypeHello:
		m.Hello = new(Hello)
		return m.Hello
	case TypeFacts:
		m.Facts = new(Facts)
		return m.Facts
	case TypePoint:
		m.Point = new(Point)
		return m.Point
	case TypeSkip:
		m.Skip = new(Skip)
		return m.Skip
	case TypeRaw:
		m.Raw = new(Raw)
		return m.Raw
	case TypeLog:
		m.Log = new(Log)
		return m.Log
	case TypeDone:
		m.Done = new(Done)
		return m.Done
	case TypeKernel:
		m.Kernel = new(Kernel)
		return m.Kernel
	case TypeBegin:
		m.Begin = new(Begin)
		return m.Begin
	case TypeVerify:
		m.Verify = new(VerifyReport)
		return m.Verify
	}
	return nil
}

// validate refuses a decoded message whose values no agent sends: a hello of another protocol version
// (ErrUnknownProtocol, so the controller can say the agent is too old or new), and bodies that fail their own
// checks or whose kernel tallies do not match their lines (ErrBadMessage).
func (m Message) validate() error {
	if m.Hello != nil && m.Hello.Protocol != ProtocolVersion {
		return fmt.Errorf("%w: agent speaks %d, controller %d", ErrUnknownProtocol, m.Hello.Protocol, ProtocolVersion)
	}
	if m.Verify != nil {
		if err := m.Verify.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrBadMessage, err)
		}
	}
	if m.Point != nil {
		if err := m.Point.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrBadMessage, err)
		}
		if t := m.Point.KernelTally; t != nil {
			if err := t.Validate(len(m.Point.Kernel)); err != nil {
				return fmt.Errorf("%w: point: %v", ErrBadMessage, err)
			}
		}
	}
	if k := m.Kernel; k != nil && k.Tally != nil {
		if err := k.Tally.Validate(len(k.Lines)); err != nil {
			return fmt.Errorf("%w: kernel: %v", ErrBadMessage, err)
		}
	}
	if k := m.Kernel; k != nil && k.Dropped < 0 {
		return fmt.Errorf("%w: kernel: dropped %d", ErrBadMessage, k.Dropped)
	}
	return nil
}
