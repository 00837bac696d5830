package fleet

import (
	"cmp"
	"debug/buildinfo"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// ErrWrongBinary is wrapped by CheckELF when a file cannot run on the target: not an ELF executable, another
// machine or class, dynamically linked, or built for a newer ARM architecture than the board's.
var ErrWrongBinary = errors.New("wrong binary for the board")

// ARM ELF header flags (ARM IHI 0044, "ELF for the Arm Architecture").
const (
	armEABIMask     = 0xff000000
	armEABIVersion4 = 0x04000000
	armEABIVersion5 = 0x05000000
	armABIFloatHard = 0x00000400
)

// elfMachines gives, per GOARCH, the ELF machine, class and byte order a Linux executable must have.
var elfMachines = map[string]struct {
	machine elf.Machine
	class   elf.Class
	data    elf.Data
}{
	"arm":      {elf.EM_ARM, elf.ELFCLASS32, elf.ELFDATA2LSB},
	"arm64":    {elf.EM_AARCH64, elf.ELFCLASS64, elf.ELFDATA2LSB},
	"amd64":    {elf.EM_X86_64, elf.ELFCLASS64, elf.ELFDATA2LSB},
	"386":      {elf.EM_386, elf.ELFCLASS32, elf.ELFDATA2LSB},
	"riscv64":  {elf.EM_RISCV, elf.ELFCLASS64, elf.ELFDATA2LSB},
	"mips":     {elf.EM_MIPS, elf.ELFCLASS32, elf.ELFDATA2MSB},
	"mipsle":   {elf.EM_MIPS, elf.ELFCLASS32, elf.ELFDATA2LSB},
	"mips64":   {elf.EM_MIPS, elf.ELFCLASS64, elf.ELFDATA2MSB},
	"mips64le": {elf.EM_MIPS, elf.ELFCLASS64, elf.ELFDATA2LSB},
	"ppc64le":  {elf.EM_PPC64, elf.ELFCLASS64, elf.ELFDATA2LSB},
	"loong64":  {elf.EM_LOONGARCH, elf.ELFCLASS64, elf.ELFDATA2LSB},
}

// CheckELF reports whether the executable at path runs on boards of target t: ELF machine, class and byte order,
// statically linked (boards need no libc of ours), and for 32-bit ARM a Linux EABI binary that is not hard-float on
// ARMv5. For a Go binary it also reads the build settings and refuses one built for a newer GOARM than t's (an
// ARMv7 agent dies with an illegal instruction on an ARMv5 board).
func CheckELF(path string, t Target) error {
	if err := checkELF(path, t); err != nil {
		return fmt.Errorf("check ELF of %s for %s: %w", path, t, err)
	}
	return nil
}

func checkELF(path string, t Target) error {
	want, ok := elfMachines[t.GOARCH]
	if !ok {
		return fmt.Errorf("%w: unsupported GOARCH %q", ErrWrongBinary, t.GOARCH)
	}
	f, err := elf.Open(path)
	if err != nil {
		var fe *elf.FormatError
		if errors.As(err, &fe) {
			return fmt.Errorf("%w: not an ELF file: %v", ErrWrongBinary, err)
		}
		return err
	}
	defer f.Close()

	if f.Machine != want.machine {
		return fmt.Errorf("%w: ELF machine is %s, want %s", ErrWrongBinary, f.Machine, want.machine)
	}
	if f.Class != want.class {
		return fmt.Errorf("%w: ELF class is %s, want %s", ErrWrongBinary, f.Class, want.class)
	}
	if f.Data != want.data {
		return fmt.Errorf("%w: ELF byte order is %s, want %s", ErrWrongBinary, f.Data, want.data)
	}
	if f.Type != elf.ET_EXEC && f.Type != elf.ET_DYN {
		return fmt.Errorf("%w: ELF type is %s, want an executable", ErrWrongBinary, f.Type)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%w: dynamically linked (needs an interpreter); build with CGO_ENABLED=0", ErrWrongBinary)
		}
	}
	if t.GOARCH == "arm" {
		if err := checkARMFlags(path, t); err != nil {
			return err
		}
	}
	return checkGoBuild(path, t)
}

// checkARMFlags checks the EABI version and float ABI of a 32-bit ARM header. Go's linker writes EABI version 5
// without a float-ABI flag; C toolchains set one of the two float flags.
// debug/elf does not expose e_flags, so it is read from the header: offset 36 in a 32-bit ELF file.
func checkARMFlags(path string, t Target) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var hdr [40]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return fmt.Errorf("%w: short ELF header: %v", ErrWrongBinary, err)
	}
	flags := binary.LittleEndian.Uint32(hdr[36:])
	switch flags & armEABIMask {
	case armEABIVersion5, armEABIVersion4:
	default:
		return fmt.Errorf("%w: ARM ELF flags %#x: not a Linux EABI binary (want EABI version 4 or 5)", ErrWrongBinary, flags)
	}
	if flags&armABIFloatHard != 0 && t.GOARM == "5" {
		return fmt.Errorf("%w: ARM ELF flags %#x: hard-float ABI, but armv5 boards need soft-float", ErrWrongBinary, flags)
	}
	return nil
}

// checkGoBuild compares a Go binary's build settings with t. Files that are not Go binaries pass: their ELF header
// is all there is to check.
func checkGoBuild(path string, t Target) error {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if v := settings["GOOS"]; v != "" && v != t.GOOS {
		return fmt.Errorf("%w: Go binary built for GOOS=%s, want %s", ErrWrongBinary, v, t.GOOS)
	}
	if v := settings["GOARCH"]; v != "" && v != t.GOARCH {
		return fmt.Errorf("%w: Go binary built for GOARCH=%s, want %s", ErrWrongBinary, v, t.GOARCH)
	}
	if v := settings["CGO_ENABLED"]; v == "1" {
		return fmt.Errorf("%w: Go binary built with CGO_ENABLED=1, want 0", ErrWrongBinary)
	}
	// a hardfloat MIPS agent traps on every float instruction of a board without an FPU (or dies, without the
	// kernel's emulator); a softfloat one runs on either
	if t.GOMIPS == "softfloat" && settings["GOMIPS"] != "softfloat" && settings["GOARCH"] != "" {
		return fmt.Errorf("%w: Go binary built for GOMIPS=%s, the board has no FPU (want softfloat)", ErrWrongBinary, cmp.Or(settings["GOMIPS"], "hardfloat"))
	}
	if t.GOARCH == "arm" && t.GOARM != "" {
		got, _, _ := strings.Cut(settings["GOARM"], ",") // "7" or "7,softfloat"
		if got == "" {
			got = "7" // the toolchain's default when GOARM is unset
		}
		g, err1 := strconv.Atoi(got)
		w, err2 := strconv.Atoi(t.GOARM)
		if err1 == nil && err2 == nil && g > w {
			return fmt.Errorf("%w: Go binary built for GOARM=%s, the board is armv%s", ErrWrongBinary, got, t.GOARM)
		}
	}
	return nil
}
