package protocol

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Cluster is one class of a board's cores: the CPUs of one core type and scheduler capacity (a big.LITTLE board
// has two or three, a symmetric one one). The probe groups CPUs by what the board itself says (cpu_capacity,
// the MIDR part in /proc/cpuinfo, and where both are silent the cpufreq policy's maximum frequency); the cpufreq
// policies and topology packages the cluster spans are kept beside it, so two A76 pairs on their own clocks (RK3588)
// are one class on two policies.
type Cluster struct {
	Name     string  `json:"name"`               // "A53", "A72", "X1"; "cpu" on a board that names no core type
	Core     string  `json:"core,omitempty"`     // "Cortex-A53"
	Part     string  `json:"part,omitempty"`     // MIDR part, "0xd03"
	CPUs     []int   `json:"cpus"`               // ascending
	Capacity int     `json:"capacity,omitempty"` // /sys/devices/system/cpu/cpuN/cpu_capacity (1024 the biggest); 0 unknown
	MaxMHz   float64 `json:"max_mhz,omitempty"`  // the highest cpuinfo_max_freq of its policies
	Policies []int   `json:"policies,omitempty"` // cpufreq policy numbers (policyN) its CPUs belong to
	Packages []int   `json:"packages,omitempty"` // topology cluster_id, else physical_package_id, of its CPUs
}

// The kinds of CPU selection (Plan.CPUs, --cpus, boards.toml cpus); any other value is a CPU list ("0-3,5").
const (
	CPUsBig    = "big"    // the cluster of the biggest cores
	CPUsLittle = "little" // the cluster of the smallest cores
	CPUsAll    = "all"    // every online CPU, pinned and recorded as such
	CPUsEach   = "each"   // every cluster in turn, smallest first
)

// MaxCPU is the highest CPU number a list may name (the kernel's NR_CPUS ceiling is 8192).
const MaxCPU = 8191

// CheckCPUs refuses a CPU selection that is neither a kind above nor a CPU list; "" (no pinning) is accepted.
func CheckCPUs(s string) error {
	switch s {
	case "", CPUsBig, CPUsLittle, CPUsAll, CPUsEach:
		return nil
	}
	if _, err := ParseCPUList(s); err != nil {
		return fmt.Errorf("cpus %q: %w (expected big, little, all, each, or a CPU list such as 0-3,5)", s, err)
	}
	return nil
}

// ParseCPUList reads a list in the kernel's cpulist format (Cpus_allowed_list, cpufreq related_cpus with
// commas): "0-3,5". Numbers ascend once parsed; a CPU named twice, a reversed range or a number past MaxCPU is
// an error. Spaces separate entries as commas do (related_cpus prints "4 5").
func ParseCPUList(s string) ([]int, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
	if len(fields) == 0 {
		return nil, errors.New("no CPU named")
	}
	seen := map[int]bool{}
	var out []int
	for _, f := range fields {
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := cpuNumber(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = cpuNumber(hi); err != nil {
				return nil, err
			}
			if b < a {
				return nil, fmt.Errorf("range %s runs backwards", f)
			}
		}
		for c := a; c <= b; c++ {
			if seen[c] {
				return nil, fmt.Errorf("CPU %d named twice", c)
			}
			seen[c] = true
			out = append(out, c)
		}
	}
	SortInts(out)
	return out, nil
}

func cpuNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || s == "" || s[0] == '+' {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	if n > MaxCPU {
		return 0, fmt.Errorf("CPU %d is past %d", n, MaxCPU)
	}
	return n, nil
}

// FormatCPUList writes cpus (any order, no duplicates) in the kernel's cpulist format: "0-3,5".
func FormatCPUList(cpus []int) string {
	c := slices.Clone(cpus)
	SortInts(c)
	var b strings.Builder
	for i := 0; i < len(c); {
		k := i
		for k+1 < len(c) && c[k+1] == c[k]+1 {
			k++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c[i]))
		if k > i {
			b.WriteString("-" + strconv.Itoa(c[k]))
		}
		i = k + 1
	}
	return b.String()
}

// SortInts sorts a short list of small integers (CPU numbers, hwmon channels, cpufreq policies) in place. An
// insertion sort of its own rather than slices.Sort: the lists are a few hundred long at most, and the agent
// then does not carry the generic pdqsort for int (about 4 KB of code on ARMv5, where the binary grows in
// 64 KiB steps against its 3 MiB budget).
func SortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
