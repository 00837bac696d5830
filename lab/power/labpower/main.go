// Command lab-power is the emulated lab's power model, written into an INA226's registers for the kernel's ina2xx
// driver to read:
//
//	lab-power start BUS ADDR HWMON IDLE_MW PER_CORE_MW   on the board (/init): set the sensor up, loop in background
//	lab-power model IDLE_MW PER_CORE_MW NCPU BUSY0 TOTAL0 BUSY1 TOTAL1   the modelled mW between two /proc/stat reads
//	lab-power regs MW                                     the INA226 register words for MW at the model's 5 V bus
//
// The emulated boards have no power to measure, so this stands in for the board's supply: every update interval
// it reads the CPU time of /proc/stat, models the board's power as idle W + W per busy core (busy = user, nice,
// system, irq, softirq, steal; the fraction of all CPUs' time, times the number of CPUs) and writes shunt
// voltage, current and power into the INA226 that i2c-stub holds at ADDR on BUS. The watts in /sys/class/hwmon
// are therefore a model, never a measurement; only the path from the registers to fleet's energy per point is
// real (driver, hwmon files, sampling, integration).
//
// It is a Go program, not a shell loop, because the model must cost the board (almost) nothing, as a real
// shunt monitor does: the shell loop forked usleep and three i2cset every 282 ms, which under QEMU's TCG cost
// the guest 8–17 % of its CPU, and fleet counts that as background load that makes points invalid. This one
// reads /proc/stat and writes only the registers that changed, through the i2c-dev ioctl, in its own process.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	code := run(os.Args[1:], os.Stdout)
	os.Exit(code)
}

// usageError is a command line refused: exit 2, the message prefixed "lab-power: ".
type usageError string

func (e usageError) Error() string { return string(e) }

func run(args []string, stdout io.Writer) int {
	err := dispatch(args, stdout)
	if err == nil {
		return 0
	}
	fmt.Fprintln(os.Stderr, "lab-power: "+err.Error())
	return 2
}

func dispatch(args []string, stdout io.Writer) error {
	cmd := ""
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "start":
		if len(args) != 5 {
			return usageError("usage: lab-power start BUS ADDR HWMON IDLE_MW PER_CORE_MW")
		}
		return start(args, stdout)
	case "loop":
		return loopCommand(args)
	case "model":
		if len(args) != 7 {
			return usageError("usage: lab-power model IDLE_MW PER_CORE_MW NCPU BUSY0 TOTAL0 BUSY1 TOTAL1")
		}
		v, err := uints([]string{"IDLE_MW", "PER_CORE_MW", "NCPU", "BUSY0", "TOTAL0", "BUSY1", "TOTAL1"}, args)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, model(v[0], v[1], v[2], v[3], v[4], v[5], v[6]))
		return nil
	case "regs":
		if len(args) != 1 {
			return usageError("usage: lab-power regs MW")
		}
		v, err := uints([]string{"MW"}, args)
		if err != nil {
			return err
		}
		r, err := regs(v[0])
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "shunt=%d bus=%d current=%d power=%d\n", r.shunt, r.bus, r.current, r.power)
		return nil
	}
	return usageError(fmt.Sprintf("usage: lab-power start|model|regs ... (unknown command %q)", cmd))
}

// uintArg is a decimal integer without a sign of at most 9 digits; name says which argument is wrong.
func uintArg(name, s string) (int64, error) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, usageError(fmt.Sprintf("%s must be a non-negative integer, not %q", name, s))
	}
	if len(s) > 9 {
		return 0, usageError(fmt.Sprintf("%s is out of range: %s", name, s))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, usageError(fmt.Sprintf("%s: %v", name, err))
	}
	return n, nil
}

func uints(names, args []string) ([]int64, error) {
	out := make([]int64, len(args))
	for i, a := range args {
		n, err := uintArg(names[i], a)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// address is an I2C address as i2cset takes it ("0x40" or decimal), within the 7-bit range chips use.
func address(s string) (uint16, error) {
	n, err := strconv.ParseUint(s, 0, 16)
	if err != nil || n < 0x03 || n > 0x77 {
		return 0, usageError(fmt.Sprintf("ADDR must be an I2C address from 0x03 to 0x77, not %q", s))
	}
	return uint16(n), nil
}
