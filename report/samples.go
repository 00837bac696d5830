package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report/stats"
	"github.com/fleetlab/fleet/store"
)

// DefaultAlpha is the significance level of the Mann-Whitney U test, as in benchstat.
const DefaultAlpha = 0.05

// MinSamples is the number of samples per side below which the U test cannot reach significance at α = 0.05.
const MinSamples = 4

// warnTooFew is printed next to a verdict that could not be tested.
var warnTooFew = fmt.Sprintf("need ≥ %d samples per side to test significance", MinSamples)

// SampleKey names one sample: the repeats of one measurement on one board.
type SampleKey struct {
	Board     string `json:"board"`
	Mode      string `json:"mode"`
	Algorithm string `json:"algorithm"`
	Op        string `json:"op,omitempty"`
	BlockSize int    `json:"block_size"`
	KeyBits   int    `json:"key_bits,omitempty"`
	Curve     string `json:"curve,omitempty"`
	Threads   int    `json:"threads"`
	// Cluster is the cluster the points were pinned to ("A72"); "" for points not pinned, so that a history
	// measured before pinning existed stays one series.
	Cluster string `json:"cluster,omitempty"`
}

// Asym reports whether the key names an asymmetric operation, measured in operations per second.
func (k SampleKey) Asym() bool { return k.BlockSize == 0 }

// Size describes the size part of the key: "16384 B", "rsa 2048", "nistp256".
func (k SampleKey) Size() string {
	if !k.Asym() {
		return fmt.Sprintf("%d B", k.BlockSize)
	}
	return asymSize(k.KeyBits, k.Curve)
}

func asymSize(bits int, curve string) string {
	switch {
	case curve != "" && bits != 0:
		return fmt.Sprintf("%s %d", curve, bits)
	case curve != "":
		return curve
	case bits != 0:
		return fmt.Sprintf("%d bits", bits)
	}
	return "-"
}

// Label is a short human name of the key, used in warnings and failure messages.
func (k SampleKey) Label() string {
	s := fmt.Sprintf("%s %s %s %s", k.Board, k.Mode, algoLabel(k.Algorithm, k.Op, k.Threads), k.Size())
	if k.Cluster != "" {
		s += " on " + k.Cluster
	}
	return s
}

// algoLabel names an algorithm with the operation and thread count when they are not the defaults.
func algoLabel(alg, op string, threads int) string {
	s := alg
	switch op {
	case "", "encrypt", "digest":
	default:
		s += " " + op
	}
	if threads > 1 {
		s += fmt.Sprintf(" ×%d threads", threads)
	}
	return s
}

func keyOf(m store.Measurement) SampleKey {
	t := m.Threads
	if t == 0 {
		t = 1
	}
	return SampleKey{Board: m.Board, Mode: m.Mode, Algorithm: m.Algorithm, Op: m.Op, BlockSize: m.BlockSize,
		KeyBits: m.KeyBits, Curve: m.Curve, Threads: t, Cluster: m.Cluster}
}

// Sample is the repeats of one measurement. Values are bytes per second for ciphers and digests and operations
// per second for asymmetric operations, sorted ascending.
type Sample struct {
	Key      SampleKey
	Values   []float64
	CPUPct   []float64 // sorted ascending
	Runs     []int64   // distinct runs the points came from, ascending
	CPUTimed bool      // some point was timed on CPU seconds: its throughput is a wall-time estimate
	Failed   int       // failed points, excluded from Values
	Drivers  []string  // distinct kernel drivers named by the points
	Errors   []string  // distinct errors of the failed points

	// Validity: tables show every point and mark the sample; Regress leaves invalid points out before it groups.
	Invalid        int      // points judged invalid, in Values
	InvalidReasons []string // distinct reasons of the invalid points
	Suspect        int      // points judged suspect, in Values
	SuspectReasons []string // distinct reasons of the suspect points

	// Verification: points whose path gave a wrong output (in Values, marked ✗; regress fails them).
	Wrong        int
	WrongDetails []string

	// Adaptive repeats (--precision): the precision target the points carried (nil: none) and the values of the
	// repeats that count towards it, neither failed nor invalid, sorted ascending.
	Target  *precision.Target
	Counted []float64
}

// Summary is the centre and spread of a sample, benchstat style.
type Summary struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

// Spread is the larger relative distance of the minimum or the maximum from the median (0.03 = ±3%).
func (s Summary) Spread() float64 {
	if s.N == 0 || s.Median == 0 {
		return 0
	}
	return math.Max(s.Max/s.Median-1, 1-s.Min/s.Median)
}

// Summarize returns the median, minimum and maximum of sorted values.
func Summarize(sorted []float64) Summary {
	n := len(sorted)
	if n == 0 {
		return Summary{}
	}
	return Summary{Median: median(sorted), Min: sorted[0], Max: sorted[n-1], N: n}
}

func median(sorted []float64) float64 { return stats.Median(sorted) }

// Summary summarizes the sample's throughput.
func (s *Sample) Summary() Summary { return Summarize(s.Values) }

// CPU is the median CPU % of the sample's points.
func (s *Sample) CPU() float64 { return median(s.CPUPct) }

// Pooled reports whether the sample mixes points of several runs.
func (s *Sample) Pooled() bool { return len(s.Runs) > 1 }

// Group gathers measurements into samples by board, mode, algorithm, operation, size and threads, over repeats.
// Failed points are counted, not used; points judged suspect or invalid are used and counted. The warnings say
// which samples pool points of several runs.
func Group(ms []store.Measurement) ([]*Sample, []string) {
	byKey := map[SampleKey]*Sample{}
	var order []SampleKey
	for _, m := range ms {
		k := keyOf(m)
		s := byKey[k]
		if s == nil {
			s = &Sample{Key: k}
			byKey[k] = s
			order = append(order, k)
		}
		if s.Target == nil {
			if t, ok := precision.ParseFlags(m.Flags); ok {
				s.Target = &t
			}
		}
		if m.Failed {
			s.Failed++
			if m.Error != "" {
				s.Errors = addString(s.Errors, m.Error)
			}
			continue
		}
		if m.Verification == protocol.VerificationWrong {
			s.Wrong++
			s.WrongDetails = addString(s.WrongDetails, m.VerificationDetail)
		}
		switch m.Validity {
		case protocol.ValidityInvalid:
			s.Invalid++
			for _, r := range m.ValidityReasons {
				s.InvalidReasons = addString(s.InvalidReasons, r)
			}
		case protocol.ValiditySuspect:
			s.Suspect++
			for _, r := range m.ValidityReasons {
				s.SuspectReasons = addString(s.SuspectReasons, r)
			}
		}
		v := m.BytesPerSec
		if k.Asym() {
			v = m.OpsPerSec
		}
		s.Values = append(s.Values, v)
		if m.Validity != protocol.ValidityInvalid {
			s.Counted = append(s.Counted, v)
		}
		s.CPUPct = append(s.CPUPct, m.CPUPct)
		if m.Timing == "cpu" {
			s.CPUTimed = true
		}
		s.Runs = addInt64(s.Runs, m.RunID)
		if m.Driver != "" {
			s.Drivers = addString(s.Drivers, m.Driver)
		}
	}
	sort.Slice(order, func(i, j int) bool { return keyLess(order[i], order[j]) })
	out := make([]*Sample, 0, len(order))
	var warnings []string
	for _, k := range order {
		s := byKey[k]
		sort.Float64s(s.Values)
		sort.Float64s(s.Counted)
		sort.Float64s(s.CPUPct)
		out = append(out, s)
		if s.Pooled() {
			warnings = append(warnings, fmt.Sprintf("%s: points of runs %s pooled into one sample", k.Label(), joinInt64(s.Runs)))
		}
	}
	return out, warnings
}

// keyLess orders keys by board, algorithm, op, threads, size, then mode (in modeRank order): the order of every
// table, regression, history and change list. A reference comparison's lines take referenceLess instead (mode
// before size, as a vendor's table is read), which falls back on this one.
func keyLess(a, b SampleKey) bool {
	if a.Board != b.Board {
		return a.Board < b.Board
	}
	if a.Algorithm != b.Algorithm {
		return a.Algorithm < b.Algorithm
	}
	if a.Op != b.Op {
		return opRank(a.Op) < opRank(b.Op) || opRank(a.Op) == opRank(b.Op) && a.Op < b.Op
	}
	if a.Threads != b.Threads {
		return a.Threads < b.Threads
	}
	if a.KeyBits != b.KeyBits {
		return a.KeyBits < b.KeyBits
	}
	if a.Curve != b.Curve {
		return a.Curve < b.Curve
	}
	if a.BlockSize != b.BlockSize {
		return a.BlockSize < b.BlockSize
	}
	if a.Mode == b.Mode && a.Cluster != b.Cluster {
		return a.Cluster < b.Cluster
	}
	return modeLess(a.Mode, b.Mode)
}

// keyCompare is keyLess as a comparison, for slices' sorts.
func keyCompare(a, b SampleKey) int {
	switch {
	case keyLess(a, b):
		return -1
	case keyLess(b, a):
		return 1
	}
	return 0
}

// modeLess puts accelerators first, then cpu, then soft, as vendors' tables do.
func modeLess(a, b string) bool {
	ra, rb := modeRank(a), modeRank(b)
	if ra != rb {
		return ra < rb
	}
	return a < b
}

// modeRank orders modes as the vendor guides do: accelerators first (an offload driver's kcapi:DRIVER ahead of
// the rest, so it heads a board's accelerator rows), then the kernel's CPU implementations through AF_ALG
// (kcapi:cbc-aes-ce), then the CPU path, then software.
func modeRank(m string) int {
	switch m {
	case protocol.ModeCPU:
		return 2
	case protocol.ModeSoft:
		return 3
	}
	if _, ok := protocol.KCAPIDriver(m); ok {
		if protocol.IsAccelerated(m) {
			return -1
		}
		return 1
	}
	return 0
}

func opRank(op string) int {
	switch op {
	case "", "encrypt", "digest", "sign":
		return 0
	case "decrypt", "verify":
		return 1
	}
	return 2
}

// Geomean is the geometric mean of the positive values; 0 when there are none.
func Geomean(vs []float64) float64 {
	var sum float64
	n := 0
	for _, v := range vs {
		if v > 0 {
			sum += math.Log(v)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(sum / float64(n))
}

func addInt64(s []int64, v int64) []int64 {
	i := sort.Search(len(s), func(i int) bool { return s[i] >= v })
	if i < len(s) && s[i] == v {
		return s
	}
	return append(s[:i], append([]int64{v}, s[i:]...)...)
}

func addString(s []string, v string) []string {
	i := sort.SearchStrings(s, v)
	if i < len(s) && s[i] == v {
		return s
	}
	return append(s[:i], append([]string{v}, s[i:]...)...)
}

func joinInt64(s []int64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}
