package protocol

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// protocolSeedLines encodes one valid line of every message type.
func protocolSeedLines(t testing.TB) [][]byte {
	t.Helper()
	var buf bytes.Buffer
	enc := NewEncoder(&buf)
	msgs := []struct {
		typ string
		v   any
	}{
		{TypeHello, Hello{Agent: "v0.1.0-abc", Protocol: ProtocolVersion, GOOS: "linux", GOARCH: "arm", GOARM: "7"}},
		{TypeFacts, Facts{Hostname: "am335x", Machine: "armv7l", OSRelease: map[string]string{"ID": "debian"},
			CPU:        CPUFacts{Model: "Cortex-A8", Cores: 1, MaxMHz: 1000, Features: []string{"neon"}},
			Engines:    map[string]string{"devcrypto": "available"},
			ProcCrypto: []CryptoAlg{{Name: "cbc(aes)", Driver: "cbc-aes-omap", Module: "omap_aes", Priority: 300, Type: "skcipher"}},
			Modes:      []ModeFact{{Mode: "afalg", Available: false, Reason: "engine afalg failed to initialise"}}}},
		{TypePoint, Point{Mode: "devcrypto", Algorithm: "aes-256-cbc", Op: "encrypt", BlockSize: 8192, Threads: 1,
			Engine: "cryptodev", Count: 2460, Seconds: 0.01, Timing: "cpu", WallEst: 3, BytesPerSec: 6717440,
			WallS: 15.05, UserS: 0.32, SysS: 12.4, CPUPct: 84.5, Flags: []string{"cpu-timed"}, Line: 52}},
		{TypePoint, Point{Mode: "cpu", Algorithm: "rsa", Op: "sign", KeyBits: 2048, Threads: 2, Count: 2239,
			Seconds: 1, Timing: "wall", OpsPerSec: 2239, Failed: true, Error: "engine fell back"}},
		{TypeSkip, Skip{Mode: "kcapi", Algorithm: "gcm(aes)", Reason: "no AF_ALG"}},
		{TypeRaw, Raw{ID: 3, Command: []string{"openssl", "speed", "-elapsed"}, Env: []string{"OPENSSL_armcap=0"},
			Stdout: "+DT:AES-128-CBC:1:16\n+R:1:AES-128-CBC:1.0\n", Stderr: "Invalid engine \"x\"\n", Exit: 0}},
		{TypeLog, Log{Level: "warn", Msg: "ran default 3 s"}},
		{TypeError, "sweep: openssl not found"},
		{TypeDone, Done{Points: 12, Skips: 3, Failed: 1}},
	}
	for _, m := range msgs {
		if err := enc.Encode(m.typ, m.v); err != nil {
			t.Fatalf("encode %s: %v", m.typ, err)
		}
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	return lines[:len(lines)-1] // the text ends with a newline: the last element is empty
}

// reencode writes a decoded message back as one protocol line.
func reencode(t testing.TB, m Message) []byte {
	t.Helper()
	var v any
	switch m.Type {
	case TypeHello:
		v = m.Hello
	case TypeFacts:
		v = m.Facts
	case TypePoint:
		v = m.Point
	case TypeSkip:
		v = m.Skip
	case TypeRaw:
		v = m.Raw
	case TypeLog:
		v = m.Log
	case TypeDone:
		v = m.Done
	case TypeError:
		v = m.Error
	default:
		t.Fatalf("decoded unknown type %q", m.Type)
	}
	var buf bytes.Buffer
	if err := NewEncoder(&buf).Encode(m.Type, v); err != nil {
		t.Fatalf("re-encode %s: %v", m.Type, err)
	}
	return buf.Bytes()
}

func TestProtocolSeedLinesDecode(t *testing.T) {
	lines := protocolSeedLines(t)
	if got, want := len(lines), 9; got != want {
		t.Fatalf("%d seed lines, want %d", got, want)
	}
	for _, l := range lines {
		m, err := DecodeLine(l)
		if err != nil {
			t.Fatalf("DecodeLine(%s): %v", l, err)
		}
		if got := reencode(t, m); !bytes.Equal(got, l) {
			t.Errorf("round trip:\n got %s\nwant %s", got, l)
		}
	}
}

func FuzzDecodeLine(f *testing.F) {
	for _, l := range protocolSeedLines(f) {
		f.Add(l)
	}
	f.Add([]byte(`{"type":"hello","protocol":2}`))
	f.Add([]byte(`{"type":"point","mode":"cpu","algorithm":"x","count":-1}`))
	f.Add([]byte(`{"type":"nope"}`))
	f.Add([]byte("{\"type\":\"log\",\"msg\":\"\xff\"}"))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := DecodeLine(line)
		if err != nil {
			if !errors.Is(err, ErrBadMessage) && !errors.Is(err, ErrUnknownProtocol) {
				t.Fatalf("DecodeLine error %v is neither ErrBadMessage nor ErrUnknownProtocol", err)
			}
			return
		}
		if m.Point != nil {
			if err := m.Point.Validate(); err != nil {
				t.Fatalf("accepted an invalid point: %v", err)
			}
		}
		// what was accepted must survive a round trip unchanged
		once := reencode(t, m)
		m2, err := DecodeLine(once)
		if err != nil {
			t.Fatalf("re-encoded line %s does not decode: %v", once, err)
		}
		if twice := reencode(t, m2); !bytes.Equal(once, twice) {
			t.Fatalf("round trip not stable:\n%s\n%s", once, twice)
		}

		// the streaming decoder reads the same line to the same message
		d := NewDecoder(bytes.NewReader(append(once, once...)))
		for i := 0; i < 2; i++ {
			m3, err := d.Next()
			if err != nil {
				t.Fatalf("Decoder.Next line %d: %v", i+1, err)
			}
			if got := reencode(t, m3); !bytes.Equal(got, once) {
				t.Fatalf("Decoder.Next = %s, want %s", got, once)
			}
		}
		if _, err := d.Next(); err != io.EOF {
			t.Fatalf("Decoder.Next at end = %v, want io.EOF", err)
		}
	})
}

func TestDecoderSkipsLongLine(t *testing.T) {
	valid := protocolSeedLines(t)[0]
	long := append(bytes.Repeat([]byte("x"), MaxLineBytes+10), '\n')
	d := NewDecoder(bytes.NewReader(append(append(long, valid...), long[:MaxLineBytes+5]...)))
	if _, err := d.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("line 1: %v, want ErrLineTooLong", err)
	}
	m, err := d.Next()
	if err != nil || m.Hello == nil {
		t.Fatalf("line 2 = %+v, %v, want the hello", m, err)
	}
	if _, err := d.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("line 3 (no newline): %v, want ErrLineTooLong", err)
	}
	if _, err := d.Next(); err != io.EOF {
		t.Fatalf("end: %v, want io.EOF", err)
	}
	if got, want := d.Line(), 3; got != want {
		t.Errorf("Line() = %d, want %d", got, want)
	}
}

// TestDecoderNamesBadLine: a rejected line is named by its number, like an over-long one, so that a user can find
// it in the agent's raw output.
func TestDecoderNamesBadLine(t *testing.T) {
	valid := protocolSeedLines(t)[0]
	d := NewDecoder(bytes.NewReader(append(append(append([]byte{}, valid...), valid...), "{\"type\":\"point\"}\n"...)))
	for range 2 {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	_, err := d.Next()
	if !errors.Is(err, ErrBadMessage) || !strings.HasPrefix(err.Error(), "line 3: malformed agent message: ") {
		t.Errorf("Next on line 3 = %v, want \"line 3: malformed agent message: …\" wrapping ErrBadMessage", err)
	}
}
