package agent

import "errors"

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
}

// ParseSpeed finds every `openssl speed` run in text and returns its points.
func ParseSpeed(text string, hint SpeedHint) ([]SpeedRun, error) {
	return nil, errors.New("ParseSpeed: not implemented yet")
}
