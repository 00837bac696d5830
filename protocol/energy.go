package protocol

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Energy per point. A board's power comes from one of two places: a shunt monitor the kernel exposes through
// hwmon (INA226, INA3221, INA219: power*_input in µW, or curr*_input mA × in*_input mV, or energy*_input µJ
// where the chip integrates), which the agent samples on the board at the sensor's own update_interval; or a lab
// meter the controller runs as a command (power_command) that prints watts. Either way a point's joules are the
// integral of the readings over its wall time (PowerTrace), and its µJ per byte are counted above the board's
// idle power, measured at rest before the sweep for as long as one point.

// MaxBoardWatts bounds a plausible reading: no single board draws 2 kW, so a reading above it is a broken
// sensor or meter (a wrong shunt resistor, a parse of the wrong field), never a figure to store.
const MaxBoardWatts = 2000

// MinPowerIntervals is how many sensor intervals a point must last for its energy to be integrated: shorter, the
// few readings say more about where the sensor's conversions fell than about the point, and it is flagged.
const MinPowerIntervals = 3

// FlagEnergyShort marks a point shorter than MinPowerIntervals of its sensor: its energy is unknown, not guessed.
const FlagEnergyShort = "energy-short"

// PowerPlan asks the agent for what energy per point needs.
type PowerPlan struct {
	// Hwmon is the sensor the agent samples on the board, "NAME[/CHANNEL]" (ParsePowerSpec); "" when the
	// controller reads a meter instead.
	Hwmon string `json:"hwmon,omitempty"`
	// IdleS is how long the agent keeps the board at rest before the first job (the idle power's measurement).
	IdleS float64 `json:"idle_s,omitempty"`
	// Windows asks the agent to stamp each point with its Window, for a meter the controller reads.
	Windows bool `json:"windows,omitempty"`
	// Command is that meter's command line (boards.toml power_command): the controller's own, never sent.
	Command string `json:"-"`
}

// PointWindow is when a point ran, on the agent's clock, told relative to the moment its line was written so
// that the controller can place it on its own clock without the two clocks agreeing.
type PointWindow struct {
	Seconds   float64 `json:"s"`           // from the sample before the point to the one after it
	EndedAgoS float64 `json:"ended_ago_s"` // how long before the line was written the window ended
}

// PowerFacts is what a board offers to measure energy with, and what its sweep used.
type PowerFacts struct {
	// Sensors are every power rail the probe found under /sys/class/hwmon, so that a user knows what to name.
	Sensors []PowerSensor `json:"sensors,omitempty"`
	// Source is what the sweep read ("hwmon:ina226/VDD_CORE (hwmon2/power1_input)", "command"); "" none.
	Source    string  `json:"source,omitempty"`
	IntervalS float64 `json:"interval_s,omitempty"` // the source's update interval
	// IdleW is the board's mean power at rest before the sweep, over IdleS; nil when it could not be measured
	// (the reason in Unknown).
	IdleW       *float64 `json:"idle_w,omitempty"`
	IdleS       float64  `json:"idle_s,omitempty"`
	IdleSamples int      `json:"idle_samples,omitempty"`
	// Unknown says why the points carry no energy, or why the idle power is unknown.
	Unknown string `json:"unknown,omitempty"`
}

// PowerSensor is one rail of a hwmon device.
type PowerSensor struct {
	Device  string `json:"device"`  // hwmon2
	Name    string `json:"name"`    // its name file: ina226, ina3221
	Channel int    `json:"channel"` // the N of power N_input, currN_input, energyN_input
	Label   string `json:"label,omitempty"`
	// Reading is how the rail's power is read: "power" (µW), "energy" (µJ counter), "current×voltage" (mA × mV).
	Reading    string `json:"reading"`
	IntervalMS int    `json:"update_interval_ms,omitempty"` // the device's update_interval; 0 unknown
}

// Spec is how boards.toml names the rail: NAME/LABEL where it has a label, else NAME/N.
func (s PowerSensor) Spec() string {
	if s.Label != "" {
		return s.Name + "/" + s.Label
	}
	return fmt.Sprintf("%s/%d", s.Name, s.Channel)
}

// Readings of a PowerSensor.
const (
	ReadingPower   = "power"
	ReadingEnergy  = "energy"
	ReadingCurrent = "current×voltage"
)

// ParsePowerSpec splits a hwmon sensor's name, "NAME[/CHANNEL]": NAME is the device's name file (the hwmon ABI
// allows no spaces, dashes or wildcards in it), CHANNEL a rail's label or its number.
func ParsePowerSpec(spec string) (name, channel string, err error) {
	name, channel, _ = strings.Cut(spec, "/")
	if name == "" || len(name) > 64 || strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		return "", "", fmt.Errorf("hwmon device name %q: expected the device's name file, letters, digits and '_' (ina226)", name)
	}
	if strings.Contains(spec, "/") && (channel == "" || len(channel) > 64 ||
		strings.ContainsFunc(channel, func(r rune) bool { return !strconv.IsPrint(r) })) {
		return "", "", fmt.Errorf("hwmon channel %q: expected a rail's label (VDD_CORE) or number (1), one line of at most 64 bytes", channel)
	}
	return name, channel, nil
}

// SetEnergy fills p's energy from r, the point's reading over its window, with the board's idle power (nil:
// unknown, and so is µJ per byte above it). An unknown reading leaves the figures nil with the reason.
func (p *Point) SetEnergy(r EnergyReading, idleW *float64) {
	if r.Short {
		p.Flags = append(p.Flags, FlagEnergyShort)
	}
	p.EnergySamples = r.Samples
	if r.Unknown != "" {
		p.EnergyUnknown = r.Unknown
		return
	}
	j, w := r.Joules, r.Joules/r.Seconds
	p.EnergyJ, p.PowerW = &j, &w
	bytes := p.Count * float64(p.BlockSize)
	switch {
	case p.BlockSize == 0:
		// public-key operations have no bytes
	case idleW == nil:
		p.EnergyUnknown = "µJ per byte: the board's idle power is unknown"
	case bytes <= 0:
		p.EnergyUnknown = "µJ per byte: the point moved no bytes"
	case w < *idleW:
		// Below idle is no energy a point can have cost: the idle figure was high (a board whose rest is not
		// steady) or the point's readings low. A negative µJ/B would rank the point best; unknown says why.
		p.EnergyUnknown = "µJ per byte: the point's mean power " + strconv.FormatFloat(w, 'f', 2, 64) +
			" W was below the idle power " + strconv.FormatFloat(*idleW, 'f', 2, 64) +
			" W measured before the sweep: the board's rest was not steady, or its readings noisy"
	default:
		uj := (j - *idleW*r.Seconds) / bytes * 1e6
		p.EnergyUJPerByte = &uj
	}
}

// validateEnergy refuses energy figures no sensor can give: not finite, negative joules or watts, watts above
// MaxBoardWatts.
func (p *Point) validateEnergy() error {
	for _, f := range []struct {
		name string
		v    *float64
		max  float64
	}{{"energy_j", p.EnergyJ, math.MaxFloat64}, {"power_w", p.PowerW, MaxBoardWatts}} {
		if f.v != nil && !(*f.v >= 0 && *f.v <= f.max) {
			return fmt.Errorf("%s = %v", f.name, *f.v)
		}
	}
	if v := p.EnergyUJPerByte; v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0)) {
		return fmt.Errorf("energy_uj_per_byte = %v", *v)
	}
	if p.EnergySamples < 0 {
		return fmt.Errorf("energy_samples = %d", p.EnergySamples)
	}
	if w := p.Window; w != nil && !(w.Seconds >= 0 && w.EndedAgoS >= 0 && w.Seconds < 1e7 && w.EndedAgoS < 1e7) {
		return fmt.Errorf("window %v s, ended %v s ago", w.Seconds, w.EndedAgoS)
	}
	return nil
}
