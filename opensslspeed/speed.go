package opensslspeed

import (
	"errors"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// Run is one `openssl speed` invocation found in a text: a live run's output, or one of several runs
// inside a pasted log.
type Run struct {
	Command []string // the command line, from the hint or as found in the text (nil when the text has none)
	Line    int      // 1-based line where the run starts in the text
	Version string   // OpenSSL version when the text says it ("3.0.19", "1.0.1e")
	Engine  string   // engine set ("engine \"devcrypto\" set."), if any
	Mode    string   // mode from the command line or engine line: cpu, soft, devcrypto, afalg, engine:NAME, ...
	// ModeFrom says what decided Mode: "command line" (-engine, -provider), "environment" (OPENSSL_armcap=0 or
	// an OPENSSL_ia32cap mask that is soft, on the command line or in CPUINFO's env:), "engine line" (engine "x" set), or ""
	// when nothing did and Mode is the default, cpu.
	ModeFrom string
	// Env is the OpenSSL environment the text shows openssl ran with: the OPENSSL_* assignments of its command
	// line and the capability variable CPUINFO names with its env: value. EnvKnown is true when the text shows it
	// at all (a command line, or a CPUINFO line, whose missing env: says the variable was unset); Env is then
	// never nil.
	Env      map[string]string
	EnvKnown bool
	Timing   string           // "wall" (-elapsed) or "cpu"
	Threads  int              // -multi N, else 1
	Points   []protocol.Point // Mode, Algorithm, BlockSize/KeyBits, Count, Seconds, BytesPerSec/OpsPerSec, Timing, Line, Flags
	Failed   string           // non-empty when the run's numbers must not be trusted (engine fell back to software, usage error)
	Warnings []string         // things a person should know (e.g. "ran default 3 s: OpenSSL 1.0 has no -seconds")
	Problems []Problem        // values refused (out of bounds, control characters); the run is Failed when any
}

// Hint is what the caller knows that the output may not say.
type Hint struct {
	Command []string // the argv that produced the output, when known (resolves "evp" rows, -multi, -elapsed, engine)
	Seconds float64  // nominal seconds per point, when known
	Env     []string // NAME=value entries openssl ran with, e.g. "OPENSSL_armcap=0" (decides the soft mode)
	Version string   // OpenSSL version from the probe; decides the units of 1.0.x -mr asymmetric lines
	// Algorithm names the rows labelled "evp" when the text has no `-evp ALG` command line (OpenSSL 1.1.1
	// -multi prints its total so); without either such a row is a Problem that says to pass it.
	Algorithm string
	// Sizes are the block sizes of the columns of a symmetric table printed without its "type … bytes" header
	// (a capture cut by tail), when the text does not say them.
	Sizes []int
}

// ErrNotFound means a text holds no `openssl speed` output at all.
var ErrNotFound = errors.New("no openssl speed output found")

// ErrUnnamedEVP is the Problem of a row labelled "evp" (OpenSSL 1.1.1 -multi prints its total so) in a text
// without an `openssl speed ... -evp ALG` command line, parsed without Hint.Algorithm: its algorithm is unknown.
var ErrUnnamedEVP = errors.New(`row "evp": no "openssl speed ... -evp ALG" command line in the text names its algorithm`)

// A Problem is a value in the output that no measurement can have (see the bounds in the package doc), or an
// algorithm name with control characters. It gives no point; the run that holds it is Failed.
type Problem struct {
	Line int    // 1-based line of the text
	Text string // what is wrong and what is accepted
	Err  error  // the sentinel callers decide on (ErrUnnamedEVP), else nil
}

func (p Problem) String() string { return "line " + strconv.Itoa(p.Line) + ": " + p.Text }

// Parse finds every `openssl speed` run in text and returns its points. It is Scanner over a string, for
// outputs already in memory; ErrNotFound when there is no run.
//
// It reads the output of every OpenSSL from 1.0.0 to 3.6: human tables, "Doing ..." progress lines, -mr lines,
// -multi output and asymmetric tables, alone or pasted into logs with shell prompts, `time -v` output, email
// quoting and prose. A new run starts at each `openssl speed` command line, and where a log has none, when a
// measurement repeats one already seen or follows a finished table. hint applies to runs whose text shows no
// command line.
//
// Rates: a human table's cell as OpenSSL printed it ("k" is 1000 B/s, a plain number is B/s); from -mr, count ÷
// seconds of the +R lines (the +F values when there are none); under -multi, the parent's total. A run timed on
// user CPU time (no -elapsed) keeps OpenSSL's Count and Seconds but its rate is count × block ÷ WallEst, where
// WallEst is the nominal duration ("for 3s", -seconds, else hint.Seconds or OpenSSL's default), or the CPU
// seconds if longer; the flag "cpu-timed: openssl reported X B/s ..." keeps OpenSSL's figure. A cell printed as
// 0.00 gives no point; "in 0.00s" on the wall clock gives a failed point without a rate. A run whose engine did
// not load, or reported errors, is Failed and so is each of its points; a usage error is a Failed run without
// points. Modes follow design.md: the engine of -engine or of an "engine ... set." line (devcrypto and
// cryptodev are "devcrypto", afalg and af_alg "afalg", others "engine:NAME"), -provider NAME, soft when
// OPENSSL_armcap=0 (or an OPENSSL_ia32cap mask that turns off what IA32CapSoftMask does) is in the command's or
// hint's environment, else cpu. A CPU-timed line that names its duration gives its point Evidence.CPUSharePct.
func Parse(text string, hint Hint) ([]Run, error) {
	s := NewScanner(strings.NewReader(text), hint)
	var runs []Run
	for s.Scan() {
		runs = append(runs, s.Run())
	}
	if err := s.Err(); err != nil {
		return runs, err
	}
	if len(runs) == 0 {
		return nil, ErrNotFound
	}
	return runs, nil
}
