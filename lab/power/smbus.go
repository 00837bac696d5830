package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// The i2c-dev ioctls and SMBus constants (linux/i2c-dev.h, linux/i2c.h), which neither syscall nor x/sys/unix
// carry.
const (
	i2cSlaveForce   = 0x0706 // I2C_SLAVE_FORCE: the address even when a driver (here ina2xx) has it bound
	i2cSMBus        = 0x0720 // I2C_SMBUS: one SMBus transfer
	smbusWrite      = 0      // I2C_SMBUS_WRITE
	smbusWordData   = 3      // I2C_SMBUS_WORD_DATA
	smbusBlockBytes = 34     // sizeof(union i2c_smbus_data): I2C_SMBUS_BLOCK_MAX + 2
)

// smbusIoctlData is struct i2c_smbus_ioctl_data {__u8 read_write; __u8 command; __u32 size; union i2c_smbus_data
// *data;}: Go lays it out as C does on arm64 (16 bytes, data at 8) and arm (12 bytes, data at 8).
type smbusIoctlData struct {
	readWrite uint8
	command   uint8
	size      uint32
	data      *[smbusBlockBytes]byte
}

// smbusDevice writes an INA226's registers through /dev/i2c-N, one I2C_SMBUS ioctl a word: no process is
// started, unlike i2cset.
type smbusDevice struct {
	f    *os.File
	name string // "/dev/i2c-0 0x40", for messages
	data [smbusBlockBytes]byte
}

// openSMBus opens /dev/i2c-BUS and addresses ADDR on it, by force, since the ina2xx driver holds the address
// (the stub takes writes while the driver is bound, as `i2cset -f` relies on).
func openSMBus(bus, addr uint64) (*smbusDevice, error) {
	path := fmt.Sprintf("/dev/i2c-%d", bus)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("open the SMBus: %w", err)
	}
	d := &smbusDevice{f: f, name: fmt.Sprintf("%s 0x%02x", path, addr)}
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), i2cSlaveForce, uintptr(addr)); errno != 0 {
		f.Close()
		return nil, fmt.Errorf("%s: I2C_SLAVE_FORCE: %w", d.name, errno)
	}
	return d, nil
}

// writeRegister writes an INA226 register's value. The SMBus word goes low byte first and the chip's registers
// high byte first, so the word is written swapped (see swab), as i2cset was given it.
func (d *smbusDevice) writeRegister(reg uint8, value uint16) error {
	// union i2c_smbus_data's word is the host's __u16 (little-endian on both lab boards).
	binary.NativeEndian.PutUint16(d.data[:2], swab(value))
	args := smbusIoctlData{readWrite: smbusWrite, command: reg, size: smbusWordData, data: &d.data}
	// The pointer is converted in the call itself, so args stays where the kernel reads it.
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, d.f.Fd(), i2cSMBus, uintptr(unsafe.Pointer(&args)))
	runtime.KeepAlive(d)
	if errno != 0 {
		return fmt.Errorf("%s: write register 0x%02x: %w", d.name, reg, errno)
	}
	return nil
}

func (d *smbusDevice) Close() error { return d.f.Close() }
