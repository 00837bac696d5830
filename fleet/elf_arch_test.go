package fleet

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var updateELF = flag.Bool("update-elf", false, "rebuild testdata/elf/*.hdr with the Go toolchain")

// elfArches are the targets whose real ELF headers testdata/elf keeps: the ELF header and program headers of a
// static Go executable as the toolchain's linker wrote them for that target (the section headers and contents cut
// off, so each file is a few hundred bytes). TestCheckELFTestdata -update-elf writes them again.
var elfArches = []string{"armv5", "armv7", "arm64", "amd64", "386", "riscv64", "mips", "mipsle", "mips-softfloat",
	"mipsle-softfloat", "mips64", "mips64le", "ppc64le", "loong64"}

// TestCheckELFTestdata checks each real header against every target: it fits its own and no other (apart from
// the 32-bit ARM levels, which share one header, and softfloat MIPS, whose difference is in the build settings).
func TestCheckELFTestdata(t *testing.T) {
	if *updateELF {
		writeELFTestdata(t)
	}
	for _, file := range elfArches {
		path := filepath.Join("testdata", "elf", file+".hdr")
		own, err := TargetForArch(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, arch := range elfArches {
			target, _ := TargetForArch(arch)
			err := CheckELF(path, target)
			want := target.GOARCH == own.GOARCH
			if want != (err == nil) {
				t.Errorf("CheckELF(%s, %s) = %v, want ok=%v", file, target, err, want)
			}
			if err != nil && !errors.Is(err, ErrWrongBinary) {
				t.Errorf("CheckELF(%s, %s) = %v, want ErrWrongBinary", file, target, err)
			}
		}
	}
}

func writeELFTestdata(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module elfhdr\n\ngo 1.24\n"), 0o644)
	os.MkdirAll(filepath.Join("testdata", "elf"), 0o755)
	for _, arch := range elfArches {
		hdr := filepath.Join("testdata", "elf", arch+".hdr")
		if _, err := os.Stat(hdr); err == nil && os.Getenv("FLEET_ELF_REBUILD") == "" {
			continue // FLEET_ELF_REBUILD=1 writes every one again
		}
		target, _ := TargetForArch(arch)
		out := filepath.Join(dir, arch)
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = buildEnv(os.Environ(), target)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", arch, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hdr, elfHeaders(t, b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// elfHeaders keeps the ELF header and program headers of b, with the section header table removed from the
// header (e_shoff, e_shnum, e_shstrndx set to 0) so that debug/elf reads the short file.
func elfHeaders(t *testing.T, b []byte) []byte {
	f, err := elf.NewFile(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if f.Data == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	if f.Class == elf.ELFCLASS64 {
		phoff, phsize, phnum := order.Uint64(b[32:]), int(order.Uint16(b[54:])), int(order.Uint16(b[56:]))
		out := append([]byte{}, b[:int(phoff)+phsize*phnum]...)
		order.PutUint64(out[40:], 0)
		order.PutUint16(out[60:], 0)
		order.PutUint16(out[62:], 0)
		return out
	}
	phoff, phsize, phnum := order.Uint32(b[28:]), int(order.Uint16(b[42:])), int(order.Uint16(b[44:]))
	out := append([]byte{}, b[:int(phoff)+phsize*phnum]...)
	order.PutUint32(out[32:], 0)
	order.PutUint16(out[48:], 0)
	order.PutUint16(out[50:], 0)
	return out
}
