package agent

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestCrossCompileAgent builds the agent the way the controller does for every board architecture and checks
// the size limit and the ELF machine.
func TestCrossCompileAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles six binaries")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = "/usr/local/go/bin/go"
	}
	// The budget protects the boards: flash of small ARM boards and slow links to them. amd64 code is larger
	// for the same program (3.02 MiB when arm was 2.94 MiB and arm64 2.88 MiB, with mode ssh's transfer,
	// adaptive repeats and the one-session measure) and x86 "boards" are PCs, so they get 3.25 MiB.
	// The linker pads each ARM segment to 64 KiB, so the file grows in 64 KiB steps (sizes k × 64 KiB + 1442
	// bytes): the verification of every path (verify*.go, about 35 KB of ARMv5 code) took GOARM=5 two steps
	// past 2.94 MiB, to 3211426 bytes (3.06 MiB; GOARM=7 and arm64 stay at 2.94 MiB). 3.125 MiB allows that
	// step and not the next.
	const maxBytes, maxBytesX86 = 3<<20 + 128<<10, 3<<20 + 256<<10
	for _, tc := range []struct {
		goarch, goarm string
		machine       elf.Machine
		class         elf.Class
	}{
		{"arm", "5", elf.EM_ARM, elf.ELFCLASS32},
		{"arm", "6", elf.EM_ARM, elf.ELFCLASS32},
		{"arm", "7", elf.EM_ARM, elf.ELFCLASS32},
		{"arm64", "", elf.EM_AARCH64, elf.ELFCLASS64},
		{"amd64", "", elf.EM_X86_64, elf.ELFCLASS64},
		{"386", "", elf.EM_386, elf.ELFCLASS32},
	} {
		name := tc.goarch + tc.goarm
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "fleet-agent-"+name)
			cmd := exec.Command(goBin, "build", "-trimpath", "-ldflags=-s -w", "-o", out, "github.com/fleetlab/fleet/cmd/fleet-agent")
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+tc.goarch, "GOARM="+tc.goarm)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("build: %v\n%s", err, b)
			}
			st, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			limit, limitName := int64(maxBytes), "3.125 MiB"
			if tc.goarch == "amd64" || tc.goarch == "386" {
				limit, limitName = maxBytesX86, "3.25 MiB"
			}
			if st.Size() > limit {
				t.Errorf("%s agent is %d bytes, want at most %d (%s)", name, st.Size(), limit, limitName)
			}
			f, err := elf.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Machine != tc.machine || f.Class != tc.class || f.OSABI != elf.ELFOSABI_NONE && f.OSABI != elf.ELFOSABI_LINUX {
				t.Errorf("%s agent: machine %v class %v abi %v, want %v %v", name, f.Machine, f.Class, f.OSABI, tc.machine, tc.class)
			}
			if f.Type != elf.ET_EXEC {
				t.Errorf("%s agent: ELF type %v, want a static executable", name, f.Type)
			}
			t.Logf("%s: %d bytes (%.2f MiB)", name, st.Size(), float64(st.Size())/(1<<20))
		})
	}
}
