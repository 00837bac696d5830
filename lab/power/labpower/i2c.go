package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// The Linux i2c-dev interface (include/uapi/linux/i2c-dev.h, i2c.h): a word write to a register of the chip at
// an address, through the SMBus ioctl, as i2cset -f -y BUS ADDR REG WORD w does, without a process per write.
const (
	i2cSlaveForce  = 0x0706 // I2C_SLAVE_FORCE: the address even when a driver (ina2xx) has it bound
	i2cSMBus       = 0x0720 // I2C_SMBUS
	smbusWrite     = 0      // I2C_SMBUS_WRITE
	smbusWordData  = 3      // I2C_SMBUS_WORD_DATA
	smbusBlockSize = 34     // union i2c_smbus_data: I2C_SMBUS_BLOCK_MAX + 2
)

// smbusIoctl is struct i2c_smbus_ioctl_data: the pointer sits at offset 8 on 32- and 64-bit ARM alike.
type smbusIoctl struct {
	readWrite uint8
	command   uint8
	_         [2]byte
	size      uint32
	data      uintptr
}

// chip is one address on one i2c-dev bus, open for word writes.
type chip struct {
	f    *os.File
	name string
}

func openChip(bus int, addr uint16) (*chip, error) {
	name := fmt.Sprintf("/dev/i2c-%d", bus)
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), i2cSlaveForce, uintptr(addr)); e != 0 {
		f.Close()
		return nil, fmt.Errorf("%s: address %#x: %w", name, addr, e)
	}
	return &chip{f: f, name: fmt.Sprintf("%s %#x", name, addr)}, nil
}

// writeWord writes w to register reg as an SMBus word (low byte first on the wire).
func (c *chip) writeWord(reg uint8, w uint16) error {
	var data [smbusBlockSize]byte
	data[0], data[1] = byte(w), byte(w>>8)
	arg := smbusIoctl{readWrite: smbusWrite, command: reg, size: smbusWordData, data: uintptr(unsafe.Pointer(&data[0]))}
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, c.f.Fd(), i2cSMBus, uintptr(unsafe.Pointer(&arg)))
	runtime.KeepAlive(&data) // the kernel read it through a uintptr, which does not keep it alive
	if e != 0 {
		return fmt.Errorf("%s register %#02x: %w", c.name, reg, e)
	}
	return nil
}
