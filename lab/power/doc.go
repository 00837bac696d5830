// Command lab-power is the emulated lab's power model, written into an INA226's registers for the kernel's ina2xx
// driver to read:
//
//	lab-power start BUS ADDR HWMON IDLE_MW PER_CORE_MW   on the board (/init): set the sensor up, start the loop
//	lab-power model IDLE_MW PER_CORE_MW NCPU BUSY0 TOTAL0 BUSY1 TOTAL1   the modelled mW between two /proc/stat reads
//	lab-power regs MW                                     the INA226 register words for MW at the model's 5 V bus
//	lab-power loop BUS ADDR INTERVAL_MS IDLE_MW PER_CORE_MW NCPU   the loop start leaves running
//
// The emulated boards have no power to measure, so this stands in for the board's supply: every update interval
// it reads the CPU time of /proc/stat, models the board's power as idle W + W per busy core (busy = user, nice,
// system, irq, softirq, steal; the fraction of all CPUs' time, times the number of CPUs) and writes shunt voltage,
// current and power into the INA226 that i2c-stub holds at ADDR on BUS, in the units the ina2xx driver reads them
// with its defaults (Rshunt 10 mOhm, calibration 2048: current LSB 250 uA, power LSB 6.25 mW, shunt LSB 2.5 uV,
// bus LSB 1.25 mV). The watts in /sys/class/hwmon are therefore a model, never a measurement; only the path from
// the registers to fleet's energy per point is real (driver, hwmon files, sampling, integration).
//
// It is a static Go program, not the busybox sh script it was, because the model must cost the board's CPU
// (almost) nothing, as a real INA226 does: the script forked usleep and three i2cset per reading, about 14
// fork+exec a second, which under QEMU's TCG took 8–17 % of the guest's CPU and made fleet judge most lab points
// suspect or invalid for background CPU. The loop here keeps /proc/stat open, reads it with one pread, writes a
// register with one ioctl and only when its value changed, and sleeps in between: no process is started.
//
// Files:
//
//   - main.go: main, and run, the command line (exit 2 with a "lab-power: " message for any bad argument);
//   - model.go: the model (mW from two /proc/stat reads) and the INA226 registers for a power;
//   - loop.go: the loop: read /proc/stat, model, write the registers that changed;
//   - smbus.go: the register writes through /dev/i2c-N (I2C_SLAVE_FORCE, then I2C_SMBUS word writes);
//   - start.go: the sensor's set-up on the board and the loop's start.
package main
