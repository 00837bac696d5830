package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// wantIntervalMS is the update interval asked of the sensor: 128 averages, about 282 ms (the driver picks the
// nearest it has), so the model changes as often as the sensor converts and a 1 s point gets more than 3 readings.
const wantIntervalMS = 282

// sensor is what `lab-power start` is given and finds: the chip's bus and address, its hwmon directory, and the
// board's model.
type sensor struct {
	bus, addr uint64
	hwmon     string
	model     powerModel
}

// start sets the sensor up (update interval, bus voltage, the idle registers), starts the loop as a process of
// its own and says so on stdout in the line the lab's tests read. Everything that can be wrong is found here,
// where /init reports it, not in the loop, whose messages only reach the kernel log.
func start(s sensor, procStat string, stdout io.Writer) error {
	f, err := os.Open(filepath.Join(s.hwmon, "power1_input"))
	if err != nil {
		return fmt.Errorf("%s: no power1_input (not an ina2xx hwmon device): %w", s.hwmon, err)
	}
	f.Close()
	intervalMS, err := setInterval(s.hwmon)
	if err != nil {
		return err
	}
	if s.model.ncpu, err = countCPUs(procStat); err != nil {
		return err
	}
	if _, err := registersFor(s.model.maxMW()); err != nil {
		return fmt.Errorf("the model at full load (%d mW idle + %d mW × %d cores): %w",
			s.model.idleMW, s.model.perCoreMW, s.model.ncpu, err)
	}
	if err := writeIdle(s); err != nil {
		return err
	}
	pid, err := spawnLoop(s, intervalMS)
	if err != nil {
		return err
	}
	name, _ := os.ReadFile(filepath.Join(s.hwmon, "name"))
	fmt.Fprintf(stdout, "lab: power: %s on i2c-%d 0x%02x (%s), update_interval %d ms, modelled: %d mW idle + %d mW "+
		"per busy core of %d (lab-power pid %d)\n", bytes.TrimSpace(name), s.bus, s.addr, filepath.Base(s.hwmon),
		intervalMS, s.model.idleMW, s.model.perCoreMW, s.model.ncpu, pid)
	return nil
}

// setInterval asks the sensor for wantIntervalMS and returns the interval the driver chose.
func setInterval(hwmon string) (uint64, error) {
	path := filepath.Join(hwmon, "update_interval")
	if err := os.WriteFile(path, []byte(strconv.Itoa(wantIntervalMS)+"\n"), 0); err != nil {
		return 0, fmt.Errorf("%s: cannot set: %w", path, err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("%s: cannot read back: %w", path, err)
	}
	ms, err := parseUint("update_interval", strings.TrimSpace(string(b)))
	if err == nil && ms == 0 {
		err = errors.New("update_interval is 0 ms")
	}
	return ms, err
}

// countCPUs counts /proc/stat's per-CPU lines (cpu0, cpu1, …), the cores the model's busy share is spread over.
func countCPUs(procStat string) (uint64, error) {
	f, err := os.Open(procStat)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n uint64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20) // the intr line lists every interrupt's count
	for sc.Scan() {
		if l := sc.Text(); len(l) > 3 && strings.HasPrefix(l, "cpu") && l[3] >= '0' && l[3] <= '9' {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read %s: %w", procStat, err)
	}
	if n == 0 || n > maxCPUs {
		return 0, fmt.Errorf("%s: %d cpuN lines, want 1 to %d", procStat, n, maxCPUs)
	}
	return n, nil
}

// writeIdle writes the bus voltage and the idle power's registers, so the sensor reads the model from the start
// rather than the stub's zeroes until the loop's first write.
func writeIdle(s sensor) error {
	dev, err := openSMBus(s.bus, s.addr)
	if err != nil {
		return err
	}
	defer dev.Close()
	r, err := registersFor(s.model.idleMW)
	if err != nil {
		return err
	}
	for _, w := range []struct {
		reg   uint8
		value uint16
	}{{regBus, r.bus}, {regShunt, r.shunt}, {regCurrent, r.current}, {regPower, r.power}} {
		if err := dev.writeRegister(w.reg, w.value); err != nil {
			return fmt.Errorf("the idle registers: %w", err)
		}
	}
	return nil
}

// spawnLoop starts `lab-power loop` in a session of its own (no console signals reach it) and returns its pid.
// Its stderr is the kernel log, where a failing write is said once; stdin and stdout are /dev/null.
func spawnLoop(s sensor, intervalMS uint64) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("find lab-power's own path: %w", err)
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	cmd := exec.Command(self, "loop", u(s.bus), fmt.Sprintf("0x%02x", s.addr), u(intervalMS),
		u(s.model.idleMW), u(s.model.perCoreMW), u(s.model.ncpu))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if kmsg, err := os.OpenFile("/dev/kmsg", os.O_WRONLY, 0); err == nil {
		defer kmsg.Close()
		cmd.Stderr = kmsg
	}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start the loop: %w", err)
	}
	pid := cmd.Process.Pid
	return pid, cmd.Process.Release()
}
