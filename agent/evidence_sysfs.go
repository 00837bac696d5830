package agent

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// readTrim reads a small sysfs or procfs file; ok is false when it is missing or unreadable.
func readTrim(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// readInt reads a file holding one integer.
func readInt(path string) (int64, bool) {
	s, ok := readTrim(path)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// policySample is one cpufreq policy as read at one moment.
type policySample struct {
	name, dir              string
	cpus, driver, governor string
	minKHz, maxKHz, hwMax  int64
	curKHz                 int64
	timeInState            map[int64]uint64 // nil when the kernel has no cpufreq stats
}

// cpufreqDirs lists the cpufreq policy directories under root: policy* (Linux 4.3+), else each cpuN/cpufreq
// that is a directory of its own (older kernels link the cores of one policy to the same directory).
func cpufreqDirs(root string) []string {
	dirs, _ := filepath.Glob(root + "/sys/devices/system/cpu/cpufreq/policy*")
	if len(dirs) > 0 {
		sort.Strings(dirs)
		return dirs
	}
	cands, _ := filepath.Glob(root + "/sys/devices/system/cpu/cpu[0-9]*/cpufreq")
	seen := map[string]bool{}
	for _, d := range cands {
		real, err := filepath.EvalSymlinks(d)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs
}

// readPolicy reads one policy directory. Everything in it is optional.
func readPolicy(dir string) policySample {
	p := policySample{dir: dir, name: filepath.Base(dir)}
	if p.name == "cpufreq" {
		p.name = filepath.Base(filepath.Dir(dir)) // cpu0
	}
	p.cpus, _ = readTrim(dir + "/related_cpus")
	p.driver, _ = readTrim(dir + "/scaling_driver")
	p.governor, _ = readTrim(dir + "/scaling_governor")
	p.minKHz, _ = readInt(dir + "/scaling_min_freq")
	p.maxKHz, _ = readInt(dir + "/scaling_max_freq")
	p.hwMax, _ = readInt(dir + "/cpuinfo_max_freq")
	p.curKHz, _ = readInt(dir + "/scaling_cur_freq")
	if f, err := os.Open(dir + "/stats/time_in_state"); err == nil {
		if m, err := parseTimeInState(f); err == nil && len(m) > 0 {
			p.timeInState = m
		}
		f.Close()
	}
	return p
}

// tempSample is one temperature sensor as read at one moment.
type tempSample struct {
	name, typ string
	mc        int64
	ok        bool
	tripMC    int64 // 0: none
}

// readThermal reads every thermal zone and hwmon temperature input under root.
func readThermal(root string) []tempSample {
	var out []tempSample
	zones, _ := filepath.Glob(root + "/sys/class/thermal/thermal_zone*")
	sort.Strings(zones)
	for _, z := range zones {
		t := tempSample{name: filepath.Base(z)}
		t.typ, _ = readTrim(z + "/type")
		t.mc, t.ok = readInt(z + "/temp")
		t.tripMC = zoneTrip(z)
		out = append(out, t)
	}
	inputs, _ := filepath.Glob(root + "/sys/class/hwmon/hwmon*/temp*_input")
	sort.Strings(inputs)
	for _, in := range inputs {
		dir, file := filepath.Split(in)
		base := strings.TrimSuffix(file, "_input")
		t := tempSample{name: filepath.Base(dir) + "/" + base}
		t.typ, _ = readTrim(dir + "name")
		t.mc, t.ok = readInt(in)
		for _, lim := range []string{"_max", "_crit"} {
			if v, ok := readInt(dir + base + lim); ok && v > 0 {
				t.tripMC = v
				break
			}
		}
		out = append(out, t)
	}
	return out
}

// zoneTrip is a thermal zone's lowest passive trip point (where the kernel starts to throttle), or else its
// lowest hot or critical one; 0 when it has none.
func zoneTrip(zone string) int64 {
	types, _ := filepath.Glob(zone + "/trip_point_*_type")
	var passive, other int64
	for _, tp := range types {
		typ, ok := readTrim(tp)
		if !ok {
			continue
		}
		v, ok := readInt(strings.TrimSuffix(tp, "_type") + "_temp")
		if !ok || v <= 0 {
			continue
		}
		switch typ {
		case "passive":
			if passive == 0 || v < passive {
				passive = v
			}
		case "hot", "critical":
			if other == 0 || v < other {
				other = v
			}
		}
	}
	if passive > 0 {
		return passive
	}
	return other
}
