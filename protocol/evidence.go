package protocol

import (
	"errors"
	"fmt"
)

// Evidence is what the agent saw on the board around one point (or before a sweep) that says whether the
// numbers can be trusted: frequency scaling, background load, temperature, swapping, offline cores, steal time.
// A figure the board does not expose stays nil or empty and its reason goes to Unknown: missing sysfs is
// "unknown", never "bad". The controller turns Evidence into a verdict (package validity).
type Evidence struct {
	Cores       int    `json:"cores,omitempty"`        // online CPUs
	OfflineCPUs string `json:"offline_cpus,omitempty"` // /sys/devices/system/cpu/offline, e.g. "2-3"; empty: none or unknown

	// Background CPU over the point: the whole machine's busy time from /proc/stat minus the agent's own process
	// tree (the agent and the children it waited for), as a share of all cores (100 = every core busy).
	BackgroundPct *float64 `json:"background_pct,omitempty"`
	// CoreBusyPct is each core's busy share over the point (agent included; /proc/stat has no per-process split).
	CoreBusyPct []float64 `json:"core_busy_pct,omitempty"`
	StealPct    *float64  `json:"steal_pct,omitempty"` // hypervisor steal over the point, share of all cores
	// CPUSharePct is the share of the point's time its openssl process had a CPU, as a CPU-timed capture (no
	// -elapsed) reports it: its user CPU seconds over the run's nominal seconds ("in 1.35s" of "for 3s": 45).
	// Only imported points have it; the agent measures background CPU instead.
	CPUSharePct *float64 `json:"cpu_share_pct,omitempty"`
	LoadAvg1    *float64 `json:"loadavg1,omitempty"` // /proc/loadavg before the point

	SwapIn  *int64 `json:"pswpin,omitempty"` // /proc/vmstat pages swapped in over the point
	SwapOut *int64 `json:"pswpout,omitempty"`

	CPUFreq []FreqPolicy    `json:"cpufreq,omitempty"`
	Thermal []ThermalSensor `json:"thermal,omitempty"`

	Unknown []string `json:"unknown,omitempty"` // what could not be read, and why
}

// FreqPolicy is one cpufreq policy (a cluster of cores that share a clock).
type FreqPolicy struct {
	Policy        string  `json:"policy"`         // policy0, or cpu0 on kernels without policy directories
	CPUs          string  `json:"cpus,omitempty"` // related_cpus
	Driver        string  `json:"driver,omitempty"`
	Governor      string  `json:"governor,omitempty"`
	MinKHz        int64   `json:"scaling_min_khz,omitempty"`
	MaxKHz        int64   `json:"scaling_max_khz,omitempty"`
	CPUInfoMaxKHz int64   `json:"cpuinfo_max_khz,omitempty"`
	CurKHz        []int64 `json:"cur_khz,omitempty"` // scaling_cur_freq samples (before, after)
	// BelowMaxPct is the share of the time_in_state delta over the point spent below cpuinfo_max_freq; nil when
	// the kernel has no stats or no time passed.
	BelowMaxPct *float64 `json:"below_max_pct,omitempty"`
	LowestKHz   int64    `json:"lowest_khz,omitempty"` // lowest frequency that got time over the point
}

// ThermalSensor is one temperature: a thermal zone or a hwmon input, in millidegrees Celsius.
type ThermalSensor struct {
	Name     string `json:"name"`           // thermal_zone0, hwmon1/temp2
	Type     string `json:"type,omitempty"` // the zone's type or the hwmon's name (cpu-thermal, soc_thermal)
	BeforeMC *int64 `json:"before_mc,omitempty"`
	AfterMC  *int64 `json:"after_mc,omitempty"`
	TripMC   *int64 `json:"trip_mc,omitempty"` // lowest passive (or else hot/critical) trip point, or hwmon temp*_max
}

// DefaultBackgroundPeakPct is the background CPU above which a point is invalid, as a share of the whole machine:
// sbc-bench's rule of thumb scaled with the online cores, 16 %/cores (2 cores: 8 %, 8 cores: 2 %).
func DefaultBackgroundPeakPct(cores int) float64 { return 16 / float64(max(cores, 1)) }

// DefaultBackgroundAvgPct is the background CPU above which a point is suspect: 4 %/cores (2 cores: 2 %,
// 8 cores: 0.5 %, where sbc-bench rounds to 0 %, which no real machine meets).
func DefaultBackgroundAvgPct(cores int) float64 { return 4 / float64(max(cores, 1)) }

// Validity verdicts of a point or board run, set by the controller.
const (
	ValidityOK      = "ok"
	ValiditySuspect = "suspect"
	ValidityInvalid = "invalid"
)

// Validate rejects evidence no board can produce: shares outside 0–100, negative counts. nil is valid (no
// evidence). A verdict is only as good as its evidence, so an agent's nonsense never reaches the store.
func (e *Evidence) Validate() error {
	if e == nil {
		return nil
	}
	share := func(name string, v *float64) error {
		if v != nil && !(*v >= 0 && *v <= 100) {
			return fmt.Errorf("evidence %s = %v, want 0 to 100", name, *v)
		}
		return nil
	}
	errs := []error{share("background_pct", e.BackgroundPct), share("steal_pct", e.StealPct),
		share("cpu_share_pct", e.CPUSharePct)}
	for _, c := range e.CoreBusyPct {
		errs = append(errs, share("core_busy_pct", &c))
	}
	for _, p := range e.CPUFreq {
		errs = append(errs, share("below_max_pct", p.BelowMaxPct))
	}
	if e.LoadAvg1 != nil && !(*e.LoadAvg1 >= 0 && *e.LoadAvg1 < 1e6) {
		errs = append(errs, fmt.Errorf("evidence loadavg1 = %v", *e.LoadAvg1))
	}
	if e.SwapIn != nil && *e.SwapIn < 0 || e.SwapOut != nil && *e.SwapOut < 0 || e.Cores < 0 {
		errs = append(errs, fmt.Errorf("evidence with a negative count"))
	}
	return errors.Join(errs...)
}
