package fleet

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// fakeELF is the header of a minimal ELF executable: enough for debug/elf and CheckELF, nothing to run.
type fakeELF struct {
	machine elf.Machine
	class   elf.Class
	data    elf.Data
	typ     elf.Type
	flags   uint32
	interp  bool // add a PT_INTERP program header, as a dynamically linked executable has
}

// write writes the file into dir and returns its path.
func (e fakeELF) write(t *testing.T, dir, name string) string {
	t.Helper()
	var order binary.ByteOrder = binary.LittleEndian
	if e.data == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	ident := [elf.EI_NIDENT]byte{0x7f, 'E', 'L', 'F', byte(e.class), byte(e.data), byte(elf.EV_CURRENT)}
	var progs []elf.ProgType
	progs = append(progs, elf.PT_LOAD)
	if e.interp {
		progs = append(progs, elf.PT_INTERP)
	}
	var b bytes.Buffer
	if e.class == elf.ELFCLASS64 {
		h := elf.Header64{Ident: ident, Type: uint16(e.typ), Machine: uint16(e.machine), Version: uint32(elf.EV_CURRENT),
			Entry: 0x400000, Phoff: 64, Flags: e.flags, Ehsize: 64, Phentsize: 56, Phnum: uint16(len(progs))}
		binary.Write(&b, order, h)
		for _, p := range progs {
			binary.Write(&b, order, elf.Prog64{Type: uint32(p), Flags: uint32(elf.PF_R | elf.PF_X), Vaddr: 0x400000, Filesz: 64, Memsz: 64, Align: 0x1000})
		}
	} else {
		h := elf.Header32{Ident: ident, Type: uint16(e.typ), Machine: uint16(e.machine), Version: uint32(elf.EV_CURRENT),
			Entry: 0x10000, Phoff: 52, Flags: e.flags, Ehsize: 52, Phentsize: 32, Phnum: uint16(len(progs))}
		binary.Write(&b, order, h)
		for _, p := range progs {
			binary.Write(&b, order, elf.Prog32{Type: uint32(p), Flags: uint32(elf.PF_R | elf.PF_X), Vaddr: 0x10000, Filesz: 52, Memsz: 52, Align: 0x1000})
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckELFHeaders(t *testing.T) {
	le, be := elf.ELFDATA2LSB, elf.ELFDATA2MSB
	c32, c64 := elf.ELFCLASS32, elf.ELFCLASS64
	goARM := uint32(0x05000002)   // what Go's linker writes: EABI 5, has entry point
	gccSoft := uint32(0x05000200) // arm-linux-gnueabi
	gccHard := uint32(0x05000400) // arm-linux-gnueabihf
	oabi := uint32(0x00000002)
	tests := []struct {
		name string
		elf  fakeELF
		arch string
		ok   bool
	}{
		{"arm64 on arm64", fakeELF{elf.EM_AARCH64, c64, le, elf.ET_EXEC, 0, false}, "arm64", true},
		{"amd64 on amd64", fakeELF{elf.EM_X86_64, c64, le, elf.ET_EXEC, 0, false}, "amd64", true},
		{"386 on i686", fakeELF{elf.EM_386, c32, le, elf.ET_EXEC, 0, false}, "i686", true},
		{"go arm on armv5", fakeELF{elf.EM_ARM, c32, le, elf.ET_EXEC, goARM, false}, "armv5", true},
		{"go arm on armv7l", fakeELF{elf.EM_ARM, c32, le, elf.ET_EXEC, goARM, false}, "armv7l", true},
		{"soft-float on armv5", fakeELF{elf.EM_ARM, c32, le, elf.ET_EXEC, gccSoft, false}, "armv5", true},
		{"hard-float on armv7", fakeELF{elf.EM_ARM, c32, le, elf.ET_EXEC, gccHard, false}, "armv7", true},
		{"static PIE on arm64", fakeELF{elf.EM_AARCH64, c64, le, elf.ET_DYN, 0, false}, "arm64", true},
		{"hard-float on armv5", fakeELF{elf.EM_ARM, c32, le, elf.ET_EXEC, gccHard, false}, "armv5", false},
		{"old ABI arm", fakeELF{elf.EM_ARM, c32, le, elf.ET_EXEC, oabi, false}, "armv7", false},
		{"big-endian arm", fakeELF{elf.EM_ARM, c32, be, elf.ET_EXEC, goARM, false}, "armv7", false},
		{"arm64 on armv7", fakeELF{elf.EM_AARCH64, c64, le, elf.ET_EXEC, 0, false}, "armv7", false},
		{"arm on arm64", fakeELF{elf.EM_ARM, c32, le, elf.ET_EXEC, goARM, false}, "aarch64", false},
		{"amd64 on arm64", fakeELF{elf.EM_X86_64, c64, le, elf.ET_EXEC, 0, false}, "arm64", false},
		{"386 on amd64", fakeELF{elf.EM_386, c32, le, elf.ET_EXEC, 0, false}, "amd64", false},
		{"x32 on amd64", fakeELF{elf.EM_X86_64, c32, le, elf.ET_EXEC, 0, false}, "amd64", false},
		{"dynamic arm64", fakeELF{elf.EM_AARCH64, c64, le, elf.ET_EXEC, 0, true}, "arm64", false},
		{"relocatable object", fakeELF{elf.EM_AARCH64, c64, le, elf.ET_REL, 0, false}, "arm64", false},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, err := TargetForArch(tt.arch)
			if err != nil {
				t.Fatal(err)
			}
			path := tt.elf.write(t, dir, "bin"+string(rune('a'+i)))
			err = CheckELF(path, target)
			if got := err == nil; got != tt.ok {
				t.Fatalf("CheckELF(%s, %s) = %v, want ok=%v", tt.name, target, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrWrongBinary) {
				t.Errorf("CheckELF error %v does not wrap ErrWrongBinary", err)
			}
		})
	}
}

func TestCheckELFNotELF(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "agent.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := CheckELF(script, Target{GOOS: "linux", GOARCH: "arm64"})
	if !errors.Is(err, ErrWrongBinary) {
		t.Errorf("CheckELF(shell script) = %v, want ErrWrongBinary", err)
	}
	if err := CheckELF(filepath.Join(dir, "missing"), Target{GOOS: "linux", GOARCH: "arm64"}); err == nil || errors.Is(err, ErrWrongBinary) {
		t.Errorf("CheckELF(missing file) = %v, want a not-found error", err)
	}
}
