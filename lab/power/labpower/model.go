package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// busMV is the modelled supply; the current follows from the power, the shunt voltage from the current.
const busMV = 5000

// model is the board's modelled power in mW from the CPU time between two /proc/stat reads (busy0, total0 →
// busy1, total1, jiffies of all CPUs): idle + per core × busy cores. Busy cores are counted in thousandths, so a
// half-busy two-core board is 1000 and costs one core's watts. No time passed, or counters that went back, are no
// load; a busy delta beyond the total is capped at it.
func model(idle, per, ncpu, busy0, total0, busy1, total1 int64) int64 {
	db, dt := busy1-busy0, total1-total0
	var milli int64
	if dt > 0 && db >= 0 {
		db = min(db, dt)
		milli = 1000 * ncpu * db / dt
	}
	return idle + (per*milli+500)/1000
}

// registers are the INA226's register words for a power, as the chip holds them.
type registers struct {
	shunt, bus, current, power int64
}

// errRange is a power beyond what the modelled INA226 can hold in its current register.
var errRange = errors.New("beyond the modelled INA226's range (32767 × 250 uA at 5000 mV)")

// regs is the registers for mw milliwatts, in the units the ina2xx driver reads them with its defaults (Rshunt
// 10 mOhm, calibration 2048: current LSB 250 uA, power LSB 6.25 mW, shunt LSB 2.5 uV, bus LSB 1.25 mV).
func regs(mw int64) (registers, error) {
	ma := mw * 1000 / busMV // I = P / V
	r := registers{
		current: ma * 4,           // 250 uA per bit
		bus:     busMV * 4 / 5,    // 1.25 mV per bit
		power:   (mw*4 + 12) / 25, // 6.25 mW per bit, rounded
	}
	r.shunt = r.current // 10 mOhm × I at 2.5 uV per bit; with calibration 2048 the chip's current is its shunt
	if r.current > 32767 {
		return r, fmt.Errorf("%d mW is %w", mw, errRange)
	}
	return r, nil
}

// swab is the 16-bit word w with its bytes swapped: the driver reads registers with i2c_smbus_read_word_swapped
// (the chip sends the high byte first), and i2c-stub returns a word as it was written.
func swab(w int64) uint16 {
	return uint16((w&255)<<8 | (w>>8)&255)
}

// cpuTime is busy and total jiffies from /proc/stat's first line ("cpu  user nice system idle iowait irq
// softirq steal …"): busy = user, nice, system, irq, softirq, steal.
func cpuTime(stat []byte) (busy, total int64, err error) {
	line, _, _ := strings.Cut(string(stat), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: first line %q is not the cpu line", line)
	}
	var v [8]int64
	for i := range v {
		if i+1 >= len(f) {
			break // no steal column (an old kernel): 0
		}
		n, err := strconv.ParseInt(f[i+1], 10, 64)
		if err != nil || n < 0 {
			return 0, 0, fmt.Errorf("/proc/stat: cpu field %d is %q, not a count", i+1, f[i+1])
		}
		v[i] = n
	}
	u, n, s, idle, w, q, sq, st := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	busy = u + n + s + q + sq + st
	return busy, busy + idle + w, nil
}
