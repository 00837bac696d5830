package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command line. It returns the exit code: 0, or 2 with a "lab-power: " message on stderr for a bad
// argument or a sensor that cannot be set up.
func run(args []string, stdout, stderr io.Writer) int {
	if err := dispatch(args, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "lab-power: %v\n", err)
		return 2
	}
	return 0
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "start":
		if len(args) != 5 {
			return errors.New("usage: lab-power start BUS ADDR HWMON IDLE_MW PER_CORE_MW")
		}
		s, err := parseSensor(args[0], args[1], args[2], args[3], args[4])
		if err != nil {
			return err
		}
		return start(s, "/proc/stat", stdout)
	case "model":
		if len(args) != 7 {
			return errors.New("usage: lab-power model IDLE_MW PER_CORE_MW NCPU BUSY0 TOTAL0 BUSY1 TOTAL1")
		}
		return modelMain(args, stdout)
	case "regs":
		if len(args) != 1 {
			return errors.New("usage: lab-power regs MW")
		}
		mw, err := parseUint("MW", args[0])
		if err != nil {
			return err
		}
		r, err := registersFor(mw)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "shunt=%d bus=%d current=%d power=%d\n", r.shunt, r.bus, r.current, r.power)
		return nil
	case "loop":
		if len(args) != 6 {
			return errors.New("usage: lab-power loop BUS ADDR INTERVAL_MS IDLE_MW PER_CORE_MW NCPU")
		}
		return loopCommand(args, stderr)
	}
	return fmt.Errorf("usage: lab-power start|model|regs|loop ... (unknown command %q)", cmd)
}

// modelMain is `lab-power model`: the mW between two reads given as numbers.
func modelMain(args []string, stdout io.Writer) error {
	names := []string{"IDLE_MW", "PER_CORE_MW", "NCPU", "BUSY0", "TOTAL0", "BUSY1", "TOTAL1"}
	v := make([]uint64, len(args))
	for i, a := range args {
		var err error
		if v[i], err = parseUint(names[i], a); err != nil {
			return err
		}
	}
	m := powerModel{idleMW: v[0], perCoreMW: v[1], ncpu: v[2]}
	if err := checkCPUs(m.ncpu); err != nil {
		return err
	}
	fmt.Fprintln(stdout, m.mW(cpuTime{busy: v[3], total: v[4]}, cpuTime{busy: v[5], total: v[6]}))
	return nil
}

// loopCommand is `lab-power loop`, as start runs it.
func loopCommand(args []string, stderr io.Writer) error {
	s, err := parseSensor(args[0], args[1], "", args[3], args[4])
	if err != nil {
		return err
	}
	ms, err := parseUint("INTERVAL_MS", args[2])
	if err == nil && (ms == 0 || ms > 60000) {
		err = fmt.Errorf("INTERVAL_MS must be 1 to 60000, not %d", ms)
	}
	if err != nil {
		return err
	}
	if s.model.ncpu, err = parseUint("NCPU", args[5]); err != nil {
		return err
	}
	if err := checkCPUs(s.model.ncpu); err != nil {
		return err
	}
	return loopMain(s.bus, s.addr, time.Duration(ms)*time.Millisecond, s.model, stderr)
}

// parseSensor checks start's arguments (and loop's, without HWMON): each says which one is wrong.
func parseSensor(bus, addr, hwmon, idle, per string) (sensor, error) {
	var s sensor
	var err error
	if s.bus, err = parseUint("BUS", bus); err != nil {
		return s, err
	}
	if s.addr, err = strconv.ParseUint(addr, 0, 8); err != nil || s.addr < 0x03 || s.addr > 0x77 {
		return s, fmt.Errorf("ADDR must be a 7-bit I2C address from 0x03 to 0x77, not %q", addr)
	}
	s.hwmon = hwmon
	if s.model.idleMW, err = parseUint("IDLE_MW", idle); err != nil {
		return s, err
	}
	s.model.perCoreMW, err = parseUint("PER_CORE_MW", per)
	return s, err
}

// parseUint reads a decimal integer with no sign of at most 9 digits; name says which argument is wrong.
func parseUint(name, v string) (uint64, error) {
	if v == "" || !isDigits(v) {
		return 0, fmt.Errorf("%s must be a non-negative integer, not %q", name, v)
	}
	if len(v) > 9 {
		return 0, fmt.Errorf("%s is out of range: %s", name, v)
	}
	return strconv.ParseUint(v, 10, 64)
}

func isDigits(v string) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func checkCPUs(n uint64) error {
	if n == 0 || n > maxCPUs {
		return fmt.Errorf("NCPU must be 1 to %d, not %d", maxCPUs, n)
	}
	return nil
}
