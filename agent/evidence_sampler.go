package agent

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// systemSampler takes a sweep's system samples around its points (sampleSystem's readings). On a board whose
// system calls are slow (an emulated CPU: 16 ms for one sampleEvidence on the QEMU arm64 board) the cost is in
// finding and opening files, so it finds them once (the cpufreq policies, thermal zones and hwmon inputs, and
// what of them does not change during a sweep: a policy's CPUs, driver and hardware maximum, a sensor's type
// and trip points), keeps every file it reads open, and re-reads each from offset 0 (procfs and sysfs make a new
// reading then). /proc/stat is read once per sample for both its uses.
type systemSampler struct {
	root     string
	files    map[string]*os.File // nil: could not be opened, not tried again
	buf      []byte
	found    bool
	policies []policySample // the static fields, filled once
	temps    []sensorFiles
}

// sensorFiles is one temperature sensor: its static facts and the file of its reading.
type sensorFiles struct {
	sample tempSample
	input  string
}

func newSystemSampler(root string) *systemSampler {
	return &systemSampler{root: root, files: map[string]*os.File{}, buf: make([]byte, 8<<10)}
}

// read returns the whole content of path as of now (valid until the next read), ok false when it cannot be read.
func (r *systemSampler) read(path string) ([]byte, bool) {
	f, seen := r.files[path]
	if !seen {
		var err error
		if f, err = os.Open(path); err != nil {
			f = nil
		}
		r.files[path] = f
	}
	if f == nil {
		return nil, false
	}
	for {
		n, err := f.ReadAt(r.buf, 0)
		if err == nil && n == len(r.buf) && len(r.buf) < 4<<20 {
			r.buf = make([]byte, 2*len(r.buf))
			continue
		}
		if err != nil && err != io.EOF {
			return nil, false
		}
		return r.buf[:n], true
	}
}

func (r *systemSampler) readTrim(path string) (string, bool) {
	b, ok := r.read(path)
	return string(bytes.TrimSpace(b)), ok
}

func (r *systemSampler) readInt(path string) (int64, bool) {
	s, ok := r.readTrim(path)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// find lists the policies and sensors once, with what of them stays as it is.
func (r *systemSampler) find() {
	r.found = true
	for _, dir := range cpufreqDirs(r.root) {
		p := policySample{dir: dir, name: filepath.Base(dir)}
		if p.name == "cpufreq" {
			p.name = filepath.Base(filepath.Dir(dir))
		}
		p.cpus, _ = readTrim(dir + "/related_cpus")
		p.driver, _ = readTrim(dir + "/scaling_driver")
		p.hwMax, _ = readInt(dir + "/cpuinfo_max_freq")
		r.policies = append(r.policies, p)
	}
	zones, _ := filepath.Glob(r.root + "/sys/class/thermal/thermal_zone*")
	sort.Strings(zones)
	for _, z := range zones {
		t := tempSample{name: filepath.Base(z), tripMC: zoneTrip(z)}
		t.typ, _ = readTrim(z + "/type")
		r.temps = append(r.temps, sensorFiles{sample: t, input: z + "/temp"})
	}
	inputs, _ := filepath.Glob(r.root + "/sys/class/hwmon/hwmon*/temp*_input")
	sort.Strings(inputs)
	for _, in := range inputs {
		dir, file := filepath.Split(in)
		base := strings.TrimSuffix(file, "_input")
		t := tempSample{name: filepath.Base(dir) + "/" + base}
		t.typ, _ = readTrim(dir + "name")
		for _, lim := range []string{"_max", "_crit"} {
			if v, ok := readInt(dir + base + lim); ok && v > 0 {
				t.tripMC = v
				break
			}
		}
		r.temps = append(r.temps, sensorFiles{sample: t, input: in})
	}
}

// sample is sampleSystem's reading, from the files kept open.
func (r *systemSampler) sample() systemSample {
	if !r.found {
		r.find()
	}
	var s systemSample
	e := evidenceSample{at: time.Now()}
	if b, ok := r.read(r.root + "/proc/stat"); ok {
		var err error
		s.CPU, err = parseProcStat(bytes.NewReader(b))
		s.CPUOK = err == nil
		e.stat, _ = parseProcStatLines(bytes.NewReader(b))
	}
	if b, ok := r.read(r.root + "/proc/interrupts"); ok {
		var err error
		s.IRQs, err = parseCryptoInterrupts(bytes.NewReader(b))
		s.IRQsOK = err == nil
	}
	e.tree, e.treeOK = agentTreeSeconds()
	if v, ok := r.readTrim(r.root + "/proc/loadavg"); ok {
		if l, err := parseLoadAvg(v); err == nil {
			e.load, e.loadOK = l, true
		}
	}
	if b, ok := r.read(r.root + "/proc/vmstat"); ok {
		e.swapIn, e.swapOut, e.swapOK = parseVMStatSwap(bytes.NewReader(b))
	}
	e.offline, e.offlineOK = r.readTrim(r.root + "/sys/devices/system/cpu/offline")
	for _, p := range r.policies {
		p.governor, _ = r.readTrim(p.dir + "/scaling_governor")
		p.minKHz, _ = r.readInt(p.dir + "/scaling_min_freq")
		p.maxKHz, _ = r.readInt(p.dir + "/scaling_max_freq")
		p.curKHz, _ = r.readInt(p.dir + "/scaling_cur_freq")
		if b, ok := r.read(p.dir + "/stats/time_in_state"); ok {
			if m, err := parseTimeInState(bytes.NewReader(b)); err == nil && len(m) > 0 {
				p.timeInState = m
			}
		}
		e.policies = append(e.policies, p)
	}
	for _, sf := range r.temps {
		t := sf.sample
		t.mc, t.ok = r.readInt(sf.input)
		e.temps = append(e.temps, t)
	}
	s.Ev = e
	return s
}

// close closes the files kept open.
func (r *systemSampler) close() {
	for path, f := range r.files {
		if f != nil {
			f.Close()
		}
		delete(r.files, path)
	}
}
