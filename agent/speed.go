package agent

import (
	"errors"
)

// SpeedRun is one `openssl speed` invocation found in a text: a live run's output, or one of several runs
// inside a pasted log.
type SpeedRun struct {
	Command  []string // the command line, from the hint or as found in the text (nil when the text has none)
	Line     int      // 1-based line where the run starts in the text
	Version  string   // OpenSSL version when the text says it ("3.0.19", "1.0.1e")
	Engine   string   // engine set ("engine \"devcrypto\" set."), if any
	Mode     string   // mode from the command line or engine line: cpu, soft, devcrypto, afalg, engine:NAME, ...
	Timing   string   // "wall" (-elapsed) or "cpu"
	Threads  int      // -multi N, else 1
	Points   []Point  // Mode, Algorithm, BlockSize/KeyBits, Count, Seconds, BytesPerSec/OpsPerSec, Timing, Line, Flags
	Failed   string   // non-empty when the run's numbers must not be trusted (engine fell back to software, usage error)
	Warnings []string // things a person should know (e.g. "ran default 3 s: OpenSSL 1.0 has no -seconds")
}

// SpeedHint is what the caller knows that the output may not say.
type SpeedHint struct {
	Command []string // the argv that produced the output, when known (resolves "evp" rows, -multi, -elapsed, engine)
	Seconds float64  // nominal seconds per point, when known
	Env     []string // NAME=value entries openssl ran with, e.g. "OPENSSL_armcap=0" (decides the soft mode)
	Version string   // OpenSSL version from the probe; decides the units of 1.0.x -mr asymmetric lines
}

// ErrSpeedNotFound means a text holds no `openssl speed` output at all.
var ErrSpeedNotFound = errors.New("no openssl speed output found")

// ParseSpeed finds every `openssl speed` run in text and returns its points.
//
// It reads the output of every OpenSSL from 1.0.0 to 3.6: human tables, "Doing ..." progress lines, -mr lines,
// -multi output and asymmetric tables, alone or pasted into logs with shell prompts, `time -v` output, email
// quoting and prose. A new run starts at each `openssl speed` command line, and where a log has none, when a
// measurement repeats one already seen or follows a finished table. hint applies to runs whose text shows no
// command line. A run timed on user CPU time (no -elapsed) keeps OpenSSL's count and seconds but its rate is
// re-derived on the nominal wall duration (see Point.WallEst and the "cpu-timed" flag); a run whose engine did
// not load, or reported errors, is Failed and so is each of its points.
func ParseSpeed(text string, hint SpeedHint) ([]SpeedRun, error) {
	p := &speedParser{hint: hint}
	for _, l := range speedJoinWrapped(speedSplitLines(text)) {
		p.line(l)
	}
	var runs []SpeedRun
	for _, b := range p.runs {
		if b.evidence || len(b.slots) > 0 {
			runs = append(runs, b.finish(hint))
		}
	}
	if len(runs) == 0 {
		return nil, ErrSpeedNotFound
	}
	return runs, nil
}
