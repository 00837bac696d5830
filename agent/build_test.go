package agent

import (
	"cmp"
	"debug/elf"
	"os"
	"testing"

	"github.com/fleetlab/fleet/internal/buildtest"
)

// TestCrossCompileAgent builds the agent the way the controller does for every board architecture and checks
// the size limit and the ELF machine.
func TestCrossCompileAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles twelve binaries")
	}
	// The budget protects the boards: flash of small ARM boards and slow links to them. Every ARM agent must fit
	// in 3 MiB, every other one in 3.5 MiB (x86 "boards" are PCs; MIPS and the 64-bit targets without a compact
	// encoding make larger code of the same program). The agent stays within them by leaving out package regexp
	// (protocol.Pattern) and encoding/json (protocol.EncodeJSON), together 393,216 B of the ARMv5 agent:
	// with both it was 3,408,034 B, without them 3,014,818 B; mips64le 3,997,858 B then, 3,408,034 B now. The
	// file grows in 64 KiB steps (segments are 64 KiB aligned), so a limit is crossed a step at a time.
	const armBudget, otherBudget = 3 << 20, 3<<20 + 512<<10
	for _, tc := range []struct {
		goarch, goarm, gomips string
		machine               elf.Machine
		class                 elf.Class
		budget                int64
	}{
		{"arm", "5", "", elf.EM_ARM, elf.ELFCLASS32, armBudget},
		{"arm", "6", "", elf.EM_ARM, elf.ELFCLASS32, armBudget},
		{"arm", "7", "", elf.EM_ARM, elf.ELFCLASS32, armBudget},
		{"arm64", "", "", elf.EM_AARCH64, elf.ELFCLASS64, armBudget},
		{"amd64", "", "", elf.EM_X86_64, elf.ELFCLASS64, otherBudget},
		{"386", "", "", elf.EM_386, elf.ELFCLASS32, otherBudget},
		{"riscv64", "", "", elf.EM_RISCV, elf.ELFCLASS64, otherBudget},
		{"mips", "", "hardfloat", elf.EM_MIPS, elf.ELFCLASS32, otherBudget},
		{"mipsle", "", "softfloat", elf.EM_MIPS, elf.ELFCLASS32, otherBudget},
		{"mips64le", "", "", elf.EM_MIPS, elf.ELFCLASS64, otherBudget},
		{"ppc64le", "", "", elf.EM_PPC64, elf.ELFCLASS64, otherBudget},
		{"loong64", "", "", elf.EM_LOONGARCH, elf.ELFCLASS64, otherBudget},
	} {
		name := tc.goarch + tc.goarm + tc.gomips
		t.Run(name, func(t *testing.T) {
			// the controller's flags and environment (fleet.BuildAgent)
			out := buildtest.Agent(t, BuildFlags, "GOARCH="+tc.goarch, "GOARM="+tc.goarm, "GOMIPS="+cmp.Or(tc.gomips, "hardfloat"))
			st, err := os.Stat(out)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() > tc.budget {
				t.Errorf("%s agent is %d bytes, want at most %d (%.1f MiB)", name, st.Size(), tc.budget, float64(tc.budget)/(1<<20))
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
