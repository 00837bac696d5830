package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
)

// busMV is the modelled supply; the current follows from the power, the shunt voltage from the current.
const busMV = 5000

// maxCurrent is the INA226's current register's largest value (signed 16 bits, 250 µA a bit).
const maxCurrent = 32767

// cpuTime is the jiffies of all CPUs from /proc/stat's first line: busy (user, nice, system, irq, softirq,
// steal) and total (busy, idle, iowait). guest and guest_nice are in user already, so they are not added.
type cpuTime struct {
	busy, total uint64
}

// parseCPULine reads /proc/stat's first line ("cpu  user nice system idle iowait irq softirq steal …"). Fields
// after idle that an old kernel lacks count 0, as the sh model's `read` left them empty.
func parseCPULine(line []byte) (cpuTime, error) {
	f := bytes.Fields(line)
	if len(f) < 5 || string(f[0]) != "cpu" {
		return cpuTime{}, fmt.Errorf("not /proc/stat's cpu line (\"cpu user nice system idle …\"): %q", line)
	}
	var v [8]uint64 // user nice system idle iowait irq softirq steal
	for i := range v {
		if i+1 >= len(f) {
			break
		}
		n, err := strconv.ParseUint(string(f[i+1]), 10, 64)
		if err != nil {
			return cpuTime{}, fmt.Errorf("/proc/stat's cpu line, field %d: %w", i+2, err)
		}
		v[i] = n
	}
	busy := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	return cpuTime{busy: busy, total: busy + v[3] + v[4]}, nil
}

// maxCPUs bounds a model's cores, so that no product in mW can overflow (per core mW ≤ 9 digits).
const maxCPUs = 1024

// powerModel is a board's model: idle mW, and mW per busy core of ncpu (1 to maxCPUs).
type powerModel struct {
	idleMW, perCoreMW, ncpu uint64
}

// mW is the modelled power between two reads: idle + per core × busy cores. Busy cores are counted in
// thousandths, so a half-busy two-core board is 1000 and costs one core's watts. No time passed or counters that
// went back (a wrapped or reset counter) are no load seen; a busy delta beyond the total is capped at it.
func (m powerModel) mW(t0, t1 cpuTime) uint64 {
	var milli uint64
	if t1.total > t0.total && t1.busy >= t0.busy {
		db, dt := t1.busy-t0.busy, t1.total-t0.total
		// 1000 × ncpu × db / dt in 128 bits: db ≤ dt keeps the quotient at most 1000 × ncpu.
		hi, lo := bits.Mul64(1000*m.ncpu, min(db, dt))
		milli, _ = bits.Div64(hi, lo, dt)
	}
	return m.idleMW + (m.perCoreMW*milli+500)/1000
}

// maxMW is the model's power with every core busy.
func (m powerModel) maxMW() uint64 { return m.idleMW + m.perCoreMW*m.ncpu }

// Register addresses of the INA226 (TI datasheet SBOS547).
const (
	regShunt   = 0x01
	regBus     = 0x02
	regPower   = 0x03
	regCurrent = 0x04
)

// ina226 is the register words for a power, as the chip holds them (high byte first on the wire; see swab).
type ina226 struct {
	shunt, bus, current, power uint16
}

// errRange says a power is more than the modelled chip's current register holds at the model's bus voltage.
var errRange = errors.New("beyond the modelled INA226's range")

// registersFor gives the registers for mw milliwatts at the model's 5 V bus.
func registersFor(mw uint64) (ina226, error) {
	ma := mw * 1000 / busMV // I = P / V
	current := ma * 4       // 250 µA a bit
	if current > maxCurrent {
		return ina226{}, fmt.Errorf("%d mW is %w (%d × 250 uA at %d mV)", mw, errRange, maxCurrent, busMV)
	}
	return ina226{
		shunt:   uint16(current), // 10 mΩ × I at 2.5 µV a bit; with calibration 2048 the chip's current is its shunt
		bus:     busMV * 4 / 5,   // 1.25 mV a bit
		current: uint16(current),
		power:   uint16((mw*4 + 12) / 25), // 6.25 mW a bit, rounded
	}, nil
}

// swab is the 16-bit word w with its bytes swapped: the driver reads registers with i2c_smbus_read_word_swapped
// (the chip sends the high byte first), and i2c-stub returns a word as it was written, so a register's value is
// written swapped.
func swab(w uint16) uint16 { return w<<8 | w>>8 }
