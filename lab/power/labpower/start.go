package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// INA226 registers (datasheet SBOS547: 01h shunt voltage, 02h bus voltage, 03h power, 04h current).
const (
	regShunt   = 0x01
	regBus     = 0x02
	regPower   = 0x03
	regCurrent = 0x04
)

// start sets the sensor up and leaves the loop running in a process of its own: the update interval is set to
// about 282 ms (128 averages; the driver picks the nearest) and read back, so that the model changes as often as
// the sensor converts and a 1 s point gets more than 3 readings; the registers hold the idle power until then.
func start(args []string, stdout io.Writer) error {
	bus, err := uintArg("BUS", args[0])
	if err != nil {
		return err
	}
	addr, err := address(args[1])
	if err != nil {
		return err
	}
	hwmon := args[2]
	idle, err := uintArg("IDLE_MW", args[3])
	if err != nil {
		return err
	}
	per, err := uintArg("PER_CORE_MW", args[4])
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(hwmon, "power1_input")); err != nil {
		return fmt.Errorf("%s: no power1_input (not an ina2xx hwmon device)", hwmon)
	}
	interval := filepath.Join(hwmon, "update_interval")
	if err := os.WriteFile(interval, []byte("282\n"), 0o644); err != nil {
		return fmt.Errorf("%s: cannot set: %w", interval, err)
	}
	ms, err := readUint(interval)
	if err != nil || ms == 0 {
		return fmt.Errorf("%s: not an interval in ms (%d, %v)", interval, ms, err)
	}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return err
	}
	ncpu := int64(0)
	for _, l := range strings.Split(string(stat), "\n") {
		if len(l) > 3 && strings.HasPrefix(l, "cpu") && l[3] >= '0' && l[3] <= '9' {
			ncpu++
		}
	}
	r, err := regs(idle)
	if err != nil {
		return err
	}
	c, err := openChip(int(bus), addr)
	if err != nil {
		return err
	}
	// the bus voltage, which the model never changes, and the idle power until the loop's first reading
	for _, w := range []struct {
		reg uint8
		v   int64
	}{{regBus, r.bus}, {regShunt, r.shunt}, {regCurrent, r.current}, {regPower, r.power}} {
		if err = c.writeWord(w.reg, swab(w.v)); err != nil {
			break
		}
	}
	c.f.Close()
	if err != nil {
		return fmt.Errorf("cannot write the registers: %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	argv := []string{"lab-power", "loop", fmt.Sprint(bus), fmt.Sprint(addr), fmt.Sprint(ms), fmt.Sprint(idle), fmt.Sprint(per), fmt.Sprint(ncpu)}
	p, err := os.StartProcess(self, argv, &os.ProcAttr{Files: []*os.File{null, null, null}, Sys: &syscall.SysProcAttr{Setsid: true}})
	if err != nil {
		return fmt.Errorf("start the loop: %w", err)
	}
	name, _ := os.ReadFile(filepath.Join(hwmon, "name"))
	fmt.Fprintf(stdout, "lab: power: %s on i2c-%d %#x (%s), update_interval %d ms, modelled: %d mW idle + %d mW per busy core of %d (lab-power pid %d)\n",
		bytes.TrimSpace(name), bus, addr, filepath.Base(hwmon), ms, idle, per, ncpu, p.Pid)
	return p.Release()
}

func readUint(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// loopCommand is the background loop start leaves running: "loop BUS ADDR INTERVAL_MS IDLE_MW PER_CORE_MW NCPU".
func loopCommand(args []string) error {
	if len(args) != 6 {
		return usageError("usage: lab-power loop BUS ADDR INTERVAL_MS IDLE_MW PER_CORE_MW NCPU (start runs it)")
	}
	v, err := uints([]string{"BUS", "ADDR", "INTERVAL_MS", "IDLE_MW", "PER_CORE_MW", "NCPU"}, args)
	if err != nil {
		return err
	}
	c, err := openChip(int(v[0]), uint16(v[1]))
	if err != nil {
		return err
	}
	loop(c, time.Duration(v[2])*time.Millisecond, v[3], v[4], v[5])
	return nil
}

// loop writes the model into the chip every interval, for ever: only the registers whose word changed, so that
// a board at rest or at a steady load costs one read of /proc/stat an interval and no write.
func loop(c *chip, interval time.Duration, idle, per, ncpu int64) {
	written := map[uint8]uint16{}
	put := func(reg uint8, v int64) {
		w := swab(v)
		if old, ok := written[reg]; ok && old == w {
			return
		}
		if err := c.writeWord(reg, w); err != nil {
			fmt.Fprintln(os.Stderr, "lab-power:", err)
			return
		}
		written[reg] = w
	}
	b0, t0, _ := readCPUTime()
	for {
		time.Sleep(interval)
		b1, t1, err := readCPUTime()
		if err != nil {
			fmt.Fprintln(os.Stderr, "lab-power:", err)
			continue
		}
		r, err := regs(model(idle, per, ncpu, b0, t0, b1, t1))
		b0, t0 = b1, t1
		if err != nil {
			fmt.Fprintln(os.Stderr, "lab-power:", err)
			continue
		}
		put(regShunt, r.shunt)
		put(regCurrent, r.current)
		put(regPower, r.power)
	}
}

func readCPUTime() (busy, total int64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	return cpuTime(b)
}
