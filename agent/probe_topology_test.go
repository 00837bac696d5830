package agent

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/fleetlab/fleet/protocol"
)

// describeClusters is a compact form of clusters for comparison: "A53 0-3 1416MHz p0 k0; A72 4-5 1800MHz p4 k1".
func describeClusters(cs []protocol.Cluster) string {
	var parts []string
	for _, c := range cs {
		s := fmt.Sprintf("%s %s", c.Name, protocol.FormatCPUList(c.CPUs))
		if c.MaxMHz > 0 {
			s += fmt.Sprintf(" %gMHz", c.MaxMHz)
		}
		if c.Capacity > 0 {
			s += fmt.Sprintf(" c%d", c.Capacity)
		}
		for _, p := range c.Policies {
			s += fmt.Sprintf(" p%d", p)
		}
		for _, k := range c.Packages {
			s += fmt.Sprintf(" k%d", k)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// TestReadClustersFixtures groups the CPUs of the boards in testdata/topology (README.md there says where each
// came from): three big.LITTLE SoCs with their little cluster first or not, symmetric boards, and a board that
// names no core type.
func TestReadClustersFixtures(t *testing.T) {
	for _, tc := range []struct{ board, want string }{
		{"rk3399", "A53 0-3 1416MHz p0 k0; A72 4-5 1800MHz p4 k1"},
		// the A76s are two pairs on two clocks (policy4, policy6): one class
		{"rk3588", "A55 0-3 1800MHz p0 k0; A76 4-7 2400MHz p4 p6 k1 k2"},
		// the little A53s come first in CPU order but are the lower clock *and* the in-order core
		{"s922x", "A53 0-1 2016MHz p0 k0; A73 2-5 2208MHz p2 k1"},
		{"pi4", "A72 0-3 1800MHz p0 k0"},
		// this machine (x86, 2 vCPUs alike): cpu_capacity 1024 each, cluster_id 65535 (none), no cpufreq
		{"x86-host", "cpu 0-1 c1024 k0"},
		// constructed: no CPU part lines, the kernel's capacity alone tells the classes apart
		{"constructed-capacity", "cpu0 0-1 c446 k0; cpu1 2-3 c1024 k1"},
	} {
		t.Run(tc.board, func(t *testing.T) {
			root := "testdata/topology/" + tc.board
			info, err := os.ReadFile(root + "/proc/cpuinfo")
			if err != nil {
				t.Fatal(err)
			}
			if got := describeClusters(readClusters(root, info)); got != tc.want {
				t.Errorf("clusters:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestProbeRecordsClusters: the probe's facts carry the clusters with their core type, part and clock.
func TestProbeRecordsClusters(t *testing.T) {
	f, _, _ := probeFacts(t.Context(), ProbeOptions{Root: "testdata/topology/rk3399", OpenSSL: "/nonexistent/openssl"})
	cs := f.CPU.Clusters
	if len(cs) != 2 {
		t.Fatalf("clusters = %+v, want 2", cs)
	}
	if c := cs[1]; c.Name != "A72" || c.Core != "Cortex-A72" || c.Part != "0xd08" || c.MaxMHz != 1800 {
		t.Errorf("big cluster = %+v, want A72 Cortex-A72 0xd08 1800 MHz", c)
	}
}

func TestGroupClustersNames(t *testing.T) {
	// two classes of one core on different clocks (a Dimensity-like A78 pair) are told apart by their clock;
	// an unknown implementer's part does not name a core
	topo := []cpuTopo{
		{cpu: 0, implementer: "0x41", part: "0xd05", capacity: 400, maxKHz: 2000000, policy: 0, pkg: -1},
		{cpu: 1, implementer: "0x41", part: "0xd41", capacity: 900, maxKHz: 2850000, policy: 1, pkg: -1},
		{cpu: 2, implementer: "0x41", part: "0xd41", capacity: 1024, maxKHz: 3050000, policy: 2, pkg: -1},
		{cpu: 3, implementer: "0x51", part: "0xd41", capacity: 1024, maxKHz: 3050000, policy: 2, pkg: -1},
	}
	got := describeClusters(groupClusters(topo))
	want := "A55 0 2000MHz c400 p0; A78@2850 1 2850MHz c900 p1; A78@3050 2 3050MHz c1024 p2; cpu 3 3050MHz c1024 p2"
	if got != want {
		t.Errorf("clusters:\n got %s\nwant %s", got, want)
	}
}

func TestParseCPUPartsSharedBlock(t *testing.T) {
	// ARMv7 kernels before 3.8 print the processors, then one block of fields for all of them
	in := "Processor\t: ARMv7 Processor rev 10 (v7l)\nprocessor\t: 0\nBogoMIPS\t: 790.52\n\nprocessor\t: 1\n" +
		"BogoMIPS\t: 790.52\n\nFeatures\t: swp half thumb fastmult vfp edsp neon vfpv3 tls\nCPU implementer\t: 0x41\n" +
		"CPU part\t: 0xc09\n"
	got := parseCPUParts([]byte(in))
	if got[0][1] != "0xc09" || got[1][1] != "0xc09" || len(got) != 2 {
		t.Errorf("parts = %v, want 0xc09 for CPUs 0 and 1", got)
	}
}

func FuzzParseCPUParts(f *testing.F) {
	for _, b := range []string{"rk3399", "rk3588", "s922x", "pi4", "x86-host"} {
		if in, err := os.ReadFile("testdata/topology/" + b + "/proc/cpuinfo"); err == nil {
			f.Add(string(in))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		for cpu := range parseCPUParts([]byte(in)) {
			if cpu < 0 || cpu > protocol.MaxCPU {
				t.Errorf("cpu %d out of range", cpu)
			}
		}
	})
}
