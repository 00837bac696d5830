package protocol

import (
	"fmt"
	"io"
	"math"
)

// ProtocolVersion is the version of the JSON-lines protocol between the agent and the controller.
// The controller refuses a hello with a version it does not know.
const ProtocolVersion = 1

// MaxLineBytes caps one protocol line; a longer line is an error, never a partial read.
const MaxLineBytes = 1 << 20

// Message types, the "type" field of every line.
const (
	TypeHello = "hello"
	TypeFacts = "facts"
	TypePoint = "point"
	TypeSkip  = "skip"
	TypeRaw   = "raw"
	TypeLog   = "log"
	TypeError = "error"
	TypeDone  = "done"
	// TypeVerify (verify.go): a VerifyReport.
)

// Hello is the first line the agent prints.
type Hello struct {
	Agent    string `json:"agent"`    // agent version (source hash or module version)
	Protocol int    `json:"protocol"` // ProtocolVersion
	GOOS     string `json:"goos"`
	GOARCH   string `json:"goarch"`
	GOARM    string `json:"goarm,omitempty"`
}

// Point is one measurement. Throughput is bytes_per_sec for ciphers and digests (block_size > 0) and
// ops_per_sec for asymmetric operations (block_size 0).
type Point struct {
	Mode        string  `json:"mode"`                 // soft, cpu, devcrypto, afalg, kcapi, engine:NAME, provider:NAME
	Algorithm   string  `json:"algorithm"`            // canonical lower-case: aes-128-cbc, sha256, rsa, ecdsa, eddsa, ...
	Op          string  `json:"op,omitempty"`         // encrypt, decrypt, digest, sign, verify, derive, keygen, encaps, decaps
	BlockSize   int     `json:"block_size"`           // bytes; 0 for asymmetric
	KeyBits     int     `json:"key_bits,omitempty"`   // asymmetric key size
	Curve       string  `json:"curve,omitempty"`      // nistp256, ed25519, ...
	Threads     int     `json:"threads"`              // -multi N, 1 otherwise
	Repeat      int     `json:"repeat"`               // 0-based repeat index
	Engine      string  `json:"engine,omitempty"`     // engine that was set, if any
	Driver      string  `json:"driver,omitempty"`     // kernel driver that served it, where known (/proc/crypto)
	Count       float64 `json:"count"`                // operations (blocks or signatures) done
	Seconds     float64 `json:"seconds"`              // the time OpenSSL divided by (wall with -elapsed, else user CPU)
	Timing      string  `json:"timing"`               // "wall" or "cpu": what Seconds measured
	WallEst     float64 `json:"wall_est_s,omitempty"` // timing=cpu: estimated wall seconds (nominal duration)
	BytesPerSec float64 `json:"bytes_per_sec,omitempty"`
	OpsPerSec   float64 `json:"ops_per_sec,omitempty"`
	// PublishedMin and PublishedMax are the range a vendor published beside a reference figure ("mean (min m,
	// max M)"), in the unit of BytesPerSec or OpsPerSec; 0 when none. Only points of reference runs have them.
	PublishedMin float64 `json:"published_min,omitempty"`
	PublishedMax float64 `json:"published_max,omitempty"`

	// CPU accounting of the process tree that produced the point. When one openssl command yields several points
	// (OpenSSL 1.0.x sweeping every size in one run; rsa sign and verify), its wall, user and system seconds are
	// divided among them and each point is flagged "accounting-split"; CPUPct is the command's. A series of
	// OpenSSL's default sizes measured by one openssl is not divided: each point's times run from its size's
	// +DT line to its +R line, flagged "accounting-per-size"; so are the public-key algorithms of a mode in one
	// openssl, each operation from its +DTP line to its +Rn line, flagged "accounting-per-op".
	WallS      float64 `json:"wall_s"`
	UserS      float64 `json:"user_s"`
	SysS       float64 `json:"sys_s"`
	CPUPct     float64 `json:"cpu_pct"`                // (user+sys)/wall*100
	SysBusyPct float64 `json:"sys_busy_pct,omitempty"` // system-wide busy CPU over the point from /proc/stat, 100 = all cores
	IRQDelta   int64   `json:"irq_delta,omitempty"`    // interrupts of crypto devices over the point (/proc/interrupts)

	Failed bool     `json:"failed,omitempty"` // measured but not trustworthy (engine fell back, 0.00s, ...)
	Error  string   `json:"error,omitempty"`  // why it failed
	Flags  []string `json:"flags,omitempty"`  // notes such as "default-3s: openssl 1.0 has no -seconds"
	RawID  int      `json:"raw_id,omitempty"` // the raw message (command output) this point came from
	Line   int      `json:"line,omitempty"`   // source line in the raw output or imported file

	// Evidence is what the agent saw around the point (nil from agents that predate validity evidence, and for
	// imports).
	Evidence *Evidence `json:"evidence,omitempty"`
	// Validity is the controller's verdict on the point (ValidityOK, ValiditySuspect, ValidityInvalid; "" when
	// not judged) and ValidityReasons says why in plain words.
	Validity        string   `json:"validity,omitempty"`
	ValidityReasons []string `json:"validity_reasons,omitempty"`

	// Kernel are the kernel log's lines that appeared while the point's command ran (the agent sends them; the
	// controller matches them and flags the point, and does not store them with it).
	Kernel []KernelLine `json:"kernel,omitempty"`
	// KernelTally counts every kernel line of the point, those not in Kernel too (nil from agents that predate it).
	KernelTally *KernelTally `json:"kernel_tally,omitempty"`
	// Verification is the controller's verdict on the output of the point's path (VerificationOK, …; "" when
	// not verified: imports, points stored before verification existed) and VerificationDetail says what was
	// wrong (size, direction, first differing byte) or why it is unknown.
	Verification       string `json:"verification,omitempty"`
	VerificationDetail string `json:"verification_detail,omitempty"`

	// CPUs is the list the point's process was pinned to ("4-5", the kernel's cpulist format; "" not pinned) and
	// Cluster the name of the cluster those CPUs are (Facts.CPU.Clusters: "A72"; "all" for every CPU, "mixed"
	// for a list that spans clusters; "" not pinned, so that an unpinned history stays one series). PinnedBusyPct
	// is how busy those CPUs were over the point (/proc/stat, 100 = all of them) and OtherBusyPct the rest of
	// the board's: a pinned point whose work ran elsewhere shows it.
	CPUs          string  `json:"cpus,omitempty"`
	Cluster       string  `json:"cluster,omitempty"`
	PinnedBusyPct float64 `json:"pinned_busy_pct,omitempty"`
	OtherBusyPct  float64 `json:"other_busy_pct,omitempty"`

	// Energy of the point (energy.go), where the board's sensor or the lab's meter could say: nil, never zero,
	// when it could not, with EnergyUnknown saying why (a board without any source says so once, in its facts).
	EnergyJ         *float64 `json:"energy_j,omitempty"`           // joules over the point's wall time
	PowerW          *float64 `json:"power_w,omitempty"`            // mean watts over it
	EnergySamples   int      `json:"energy_samples,omitempty"`     // readings integrated
	EnergyUJPerByte *float64 `json:"energy_uj_per_byte,omitempty"` // µJ per byte above the board's idle power
	EnergyUnknown   string   `json:"energy_unknown,omitempty"`
	// Window says when the point ran, for a meter the controller reads (power_command): its length and how long
	// before the point's line was written it ended. Zero from agents that predate it.
	Window *PointWindow `json:"window,omitempty"`
}

// Skip records a mode or algorithm not measured on this board, with the reason.
type Skip struct {
	Mode      string `json:"mode"`
	Algorithm string `json:"algorithm,omitempty"` // empty: the whole mode
	Reason    string `json:"reason"`
}

// Raw is the output of one tool invocation, kept for audit.
type Raw struct {
	ID      int      `json:"id"`
	Command []string `json:"command"`
	Env     []string `json:"env,omitempty"`
	Stdout  string   `json:"stdout"`
	Stderr  string   `json:"stderr"`
	Exit    int      `json:"exit"`
}

// Log is a message for people, not data.
type Log struct {
	Level string `json:"level"` // info, warn
	Msg   string `json:"msg"`
}

// Done ends a sweep or probe.
type Done struct {
	Points int `json:"points"`
	Skips  int `json:"skips"`
	Failed int `json:"failed"`
}

// Message is one decoded protocol line: exactly one of the pointers is set, matching Type.
type Message struct {
	Type   string
	Hello  *Hello
	Facts  *Facts
	Point  *Point
	Skip   *Skip
	Raw    *Raw
	Log    *Log
	Kernel *Kernel
	Begin  *Begin
	Error  string
	Done   *Done
	// Verify is a TypeVerify line: what one mode and algorithm's path gave for the verification inputs.
	Verify *VerifyReport
}

// Encoder writes protocol lines.
type Encoder struct {
	w   io.Writer
	err error
}

// NewEncoder returns an Encoder writing to w. Each call writes one whole line.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{w: w} }

// Encode writes v (one of the message structs, or a string for an error) as one line with its type.
func (e *Encoder) Encode(typ string, v any) error {
	if e.err != nil {
		return e.err
	}
	var body []byte
	var err error
	if typ == TypeError {
		body, err = EncodeJSON(struct {
			Type string `json:"type"`
			Msg  string `json:"msg"`
		}{typ, fmt.Sprint(v)})
	} else {
		body, err = EncodeJSON(v)
		if err == nil {
			// splice "type" in front of the object's fields
			if len(body) < 2 || body[0] != '{' {
				return fmt.Errorf("encode %s: not an object", typ)
			}
			head := fmt.Sprintf(`{"type":%q`, typ)
			if len(body) > 2 {
				head += ","
			}
			body = append([]byte(head), body[1:]...)
		}
	}
	if err != nil {
		return fmt.Errorf("encode %s: %w", typ, err)
	}
	body = append(body, '\n')
	_, e.err = e.w.Write(body)
	return e.err
}

// Validate rejects values no measurement can have.
func (p *Point) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"count", p.Count}, {"seconds", p.Seconds}, {"wall_s", p.WallS}, {"user_s", p.UserS}, {"sys_s", p.SysS},
		{"cpu_pct", p.CPUPct}, {"bytes_per_sec", p.BytesPerSec}, {"ops_per_sec", p.OpsPerSec}, {"wall_est_s", p.WallEst},
		{"sys_busy_pct", p.SysBusyPct}, {"published_min", p.PublishedMin}, {"published_max", p.PublishedMax}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return fmt.Errorf("point %s %s: %s = %v", p.Mode, p.Algorithm, f.name, f.v)
		}
	}
	if p.BlockSize < 0 || p.Threads < 0 || p.KeyBits < 0 || p.IRQDelta < 0 {
		return fmt.Errorf("point %s %s: negative size, threads or count", p.Mode, p.Algorithm)
	}
	if p.Algorithm == "" || p.Mode == "" {
		return fmt.Errorf("point without mode or algorithm")
	}
	if err := p.Evidence.Validate(); err != nil {
		return fmt.Errorf("point %s %s: %w", p.Mode, p.Algorithm, err)
	}
	if err := p.validateEnergy(); err != nil {
		return fmt.Errorf("point %s %s: %w", p.Mode, p.Algorithm, err)
	}
	return nil
}
