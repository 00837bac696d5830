package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// Power rails under /sys/class/hwmon. A shunt monitor's driver says what it measures by its files: ina2xx
// (INA219, INA226, …) has power1_input in µW beside curr1_input and in1_input; ina3221 has no power file, only
// curr[123]_input in mA and in[123]_input, the bus voltage in mV, of the same channel; a chip that integrates has
// energyN_input in µJ. Each channel is read the best way it offers: a counter, else power, else current × voltage.

// hwmonRail is one rail the agent can read: its facts and the files that give its reading.
type hwmonRail struct {
	sensor protocol.PowerSensor
	dir    string
	files  []string // energyN_input | powerN_input | currN_input, inN_input
}

var hwmonChannelRE = protocol.MustPattern(`^(power|energy|curr)([0-9]+)_input$`)

// findPowerRails lists every power rail under root's /sys/class/hwmon, in device then channel order. A device
// whose files cannot be read is left out: the probe lists what a user can name.
func findPowerRails(root string) []hwmonRail {
	devs, _ := filepath.Glob(root + "/sys/class/hwmon/hwmon*")
	sort.Slice(devs, func(i, j int) bool { return hwmonIndex(devs[i]) < hwmonIndex(devs[j]) })
	var rails []hwmonRail
	for _, dir := range devs {
		name, ok := readTrim(dir + "/name")
		if !ok || name == "" {
			continue
		}
		entries, err := dirNames(dir)
		if err != nil {
			continue
		}
		have := map[string]bool{}
		kinds := map[int]map[string]bool{}
		for _, e := range entries {
			have[e] = true
			if m := hwmonChannelRE.FindStringSubmatch(e); m != nil {
				n, _ := strconv.Atoi(m[2])
				if kinds[n] == nil {
					kinds[n] = map[string]bool{}
				}
				kinds[n][m[1]] = true
			}
		}
		interval := 0
		if v, ok := readInt(dir + "/update_interval"); ok && v > 0 && v < 1<<31 {
			interval = int(v)
		}
		channels := make([]int, 0, len(kinds))
		for n := range kinds {
			channels = append(channels, n)
		}
		protocol.SortInts(channels)
		for _, n := range channels {
			k, num := kinds[n], strconv.Itoa(n)
			if name == "ina3221" && n > 3 {
				// ina3221's in4–in7 are shunt voltages and their sum, curr4 the summed current: no rail
				continue
			}
			r := hwmonRail{dir: dir, sensor: protocol.PowerSensor{Device: filepath.Base(dir), Name: name, Channel: n, IntervalMS: interval}}
			switch {
			case k["energy"]:
				r.sensor.Reading, r.files = protocol.ReadingEnergy, []string{"energy" + num + "_input"}
			case k["power"]:
				r.sensor.Reading, r.files = protocol.ReadingPower, []string{"power" + num + "_input"}
			case k["curr"] && have["in"+num+"_input"]:
				r.sensor.Reading = protocol.ReadingCurrent
				r.files = []string{"curr" + num + "_input", "in" + num + "_input"}
			default:
				continue // a current without its voltage (ina3221's sum, curr4) is no power
			}
			for _, kind := range []string{"power", "energy", "curr", "in"} {
				if l, ok := readTrim(dir + "/" + kind + num + "_label"); ok && l != "" && len(l) <= 64 && !strings.ContainsAny(l, "/\x00") {
					r.sensor.Label = l
					break
				}
			}
			rails = append(rails, r)
		}
	}
	return rails
}

// dirNames lists the names in dir, in no order: os.ReadDir's sorted DirEntries cost the ARMv5 agent a sort of
// their own (about 7 KB of code), and the rails are ordered by channel number anyway.
func dirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// hwmonIndex orders hwmon10 after hwmon9.
func hwmonIndex(dir string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "hwmon"))
	if err != nil {
		return 1 << 30
	}
	return n
}

// chooseRail finds the rail spec names ("NAME[/CHANNEL]") among rails: CHANNEL is a label or a channel number;
// without one the device must have a single rail. Anything else is an error that lists what there is.
func chooseRail(rails []hwmonRail, spec string) (hwmonRail, error) {
	name, channel, err := protocol.ParsePowerSpec(spec)
	if err != nil {
		return hwmonRail{}, err
	}
	var ofName, match []hwmonRail
	devices := map[string]bool{}
	for _, r := range rails {
		if r.sensor.Name != name {
			continue
		}
		ofName = append(ofName, r)
		devices[r.sensor.Device] = true
		if channel == "" || r.sensor.Label == channel || strconv.Itoa(r.sensor.Channel) == channel {
			match = append(match, r)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(ofName) == 0:
		return hwmonRail{}, fmt.Errorf("power %q: no hwmon device is named %s (%s)", spec, name, railList(rails))
	case len(match) == 0:
		return hwmonRail{}, fmt.Errorf("power %q: %s has no rail %q (%s)", spec, name, channel, railList(ofName))
	case len(devices) > 1 && channel != "":
		return hwmonRail{}, fmt.Errorf("power %q: %d hwmon devices named %s have rail %q: give the rails labels in the device tree (%s)",
			spec, len(devices), name, channel, railList(match))
	default:
		return hwmonRail{}, fmt.Errorf("power %q: %s has %d rails: name one (%s)", spec, name, len(match), railList(match))
	}
}

func railList(rails []hwmonRail) string {
	if len(rails) == 0 {
		return "the board has no hwmon power rail"
	}
	var s []string
	for _, r := range rails {
		s = append(s, fmt.Sprintf("%s: %s", r.sensor.Device, r.sensor.Spec()))
	}
	return "found " + strings.Join(s, ", ")
}

// interval is how often the rail is read: its device's update_interval (a new conversion no sooner), but no
// faster than 10 ms, so that the sampler takes no CPU worth naming from the point it measures; 100 ms when the
// device does not say.
func (r hwmonRail) interval() time.Duration {
	ms := r.sensor.IntervalMS
	switch {
	case ms <= 0:
		ms = 100
	case ms < 10:
		ms = 10
	}
	return time.Duration(ms) * time.Millisecond
}

// read is the rail's reading now, in watts (or joules for a counter), through rd (the sampler's open files).
func (r hwmonRail) read(rd func(path string) (int64, bool)) (float64, error) {
	vals := make([]int64, len(r.files))
	for i, f := range r.files {
		v, ok := rd(r.dir + "/" + f)
		if !ok {
			return 0, fmt.Errorf("read %s/%s: unreadable (the sensor is gone or answers nonsense)", r.sensor.Device, f)
		}
		vals[i] = v
	}
	switch r.sensor.Reading {
	case protocol.ReadingCurrent:
		return float64(vals[0]) * float64(vals[1]) / 1e6, nil // mA × mV = µW
	default:
		return float64(vals[0]) / 1e6, nil // µW, µJ
	}
}
