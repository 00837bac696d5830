package agent

import (
	"bufio"
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// The clusters of a board come from what its kernel says, never from a table of SoCs: each CPU's core type (the
// MIDR part /proc/cpuinfo prints per processor), its scheduler capacity (cpu_capacity, from the device tree's
// capacity-dmips-mhz), its cpufreq policy and topology package. CPUs of one part and one capacity are one class;
// where the part is unknown, the policy's maximum frequency tells classes apart as well. A class spans the
// policies and packages of its CPUs (RK3588's A76s are two pairs on two clocks, one class to measure).

// cpuTopo is what the board says about one CPU.
type cpuTopo struct {
	cpu         int
	implementer string
	part        string
	capacity    int
	pkg         int // cluster_id where the kernel has it, else physical_package_id; -1 unknown
	policy      int // the N of cpufreq/policyN; -1 none
	maxKHz      int64
}

// littleCores are the in-order and efficiency cores: with no capacity from the kernel, they rank below the
// others whatever their clock (an A53 at 2016 MHz is still the S922X's little core). Lists, not maps, as
// cpuFeaturesOfInterest.
var littleCores = []string{"0xc05", "0xc07", "0xd01", "0xd02", "0xd03",
	"0xd04", "0xd05", "0xd46", "0xd80"}

// bigCores are the Cortex-X line, above the ordinary big cores of their generation.
var bigCores = []string{"0xd44", "0xd4c", "0xd48", "0xd4e", "0xd82"}

// readClusters groups the online CPUs under root ("" the real system) with cpuinfo's per-processor parts. It
// returns nil when sysfs names no CPU.
func readClusters(root string, cpuinfo []byte) []protocol.Cluster {
	cpus := onlineCPUs(root)
	if len(cpus) == 0 {
		return nil
	}
	parts := parseCPUParts(cpuinfo)
	policies := policyOf(root)
	topo := make([]cpuTopo, 0, len(cpus))
	for _, c := range cpus {
		dir := root + "/sys/devices/system/cpu/cpu" + strconv.Itoa(c)
		t := cpuTopo{cpu: c, pkg: -1, policy: -1}
		t.implementer, t.part = parts[c][0], parts[c][1]
		t.capacity = int(readSysInt(dir+"/cpu_capacity", 0))
		if id := readSysInt(dir+"/topology/cluster_id", -1); id >= 0 && id != 65535 {
			t.pkg = int(id) // 65535 and -1: the kernel's "no cluster" (x86, ACPI without PPTT clusters)
		} else if id := readSysInt(dir+"/topology/physical_package_id", -1); id >= 0 {
			t.pkg = int(id)
		}
		if p, ok := policies[c]; ok {
			t.policy = p
			t.maxKHz = readSysInt(root+"/sys/devices/system/cpu/cpufreq/policy"+strconv.Itoa(p)+"/cpuinfo_max_freq", 0)
		}
		topo = append(topo, t)
	}
	return groupClusters(topo)
}

// groupClusters makes the classes of topo, smallest first, and names them.
func groupClusters(topo []cpuTopo) []protocol.Cluster {
	type key struct {
		part     string
		capacity int
		khz      int64 // only when the part is unknown
	}
	var keys []key
	byKey := map[key]*protocol.Cluster{}
	rank := map[key]int{}
	for _, t := range topo {
		k := key{part: t.part, capacity: t.capacity}
		if t.part == "" || armCoreName(t.implementer, t.part) == "" {
			k.khz = t.maxKHz
		}
		c := byKey[k]
		if c == nil {
			c = &protocol.Cluster{Part: t.part, Capacity: t.capacity, Core: armCoreName(t.implementer, t.part)}
			byKey[k] = c
			keys = append(keys, k)
			switch {
			case slices.Contains(littleCores, strings.ToLower(t.part)):
				rank[k] = 0
			case slices.Contains(bigCores, strings.ToLower(t.part)):
				rank[k] = 2
			default:
				rank[k] = 1
			}
		}
		c.CPUs = append(c.CPUs, t.cpu)
		if mhz := float64(t.maxKHz) / 1000; mhz > c.MaxMHz {
			c.MaxMHz = mhz
		}
		if t.policy >= 0 && !slices.Contains(c.Policies, t.policy) {
			c.Policies = append(c.Policies, t.policy)
		}
		if t.pkg >= 0 && !slices.Contains(c.Packages, t.pkg) {
			c.Packages = append(c.Packages, t.pkg)
		}
	}
	// smallest first: the kernel's capacity where it gives one, else the kind of core, else its clock (sort's
	// SliceStable, which the agent links anyway: slices' generic sort of key would be about 5 KB of its own)
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		ca, cb := byKey[a], byKey[b]
		return cmp.Or(cmp.Compare(ca.Capacity, cb.Capacity), cmp.Compare(rank[a], rank[b]),
			cmp.Compare(ca.MaxMHz, cb.MaxMHz), cmp.Compare(ca.CPUs[0], cb.CPUs[0])) < 0
	})
	out := make([]protocol.Cluster, 0, len(keys))
	for _, k := range keys {
		c := byKey[k]
		protocol.SortInts(c.Policies)
		protocol.SortInts(c.Packages)
		out = append(out, *c)
	}
	nameClusters(out)
	return out
}

// nameClusters names each class by its core ("A53", "X1", "Neoverse-N1"); two classes of one core are told
// apart by their clock ("A78@3050"), and a board that names no core gets "cpu", or "cpu0", "cpu1"… smallest first.
func nameClusters(cs []protocol.Cluster) {
	count := map[string]int{}
	for i := range cs {
		cs[i].Name = strings.TrimPrefix(cs[i].Core, "Cortex-")
		count[cs[i].Name]++
	}
	for i := range cs {
		c := &cs[i]
		switch {
		case c.Name == "" && count[""] == 1:
			c.Name = "cpu"
		case c.Name == "":
			c.Name = "cpu" + strconv.Itoa(i)
		case count[c.Name] > 1 && c.MaxMHz > 0:
			c.Name += "@" + strconv.FormatFloat(c.MaxMHz, 'f', -1, 64)
		case count[c.Name] > 1:
			c.Name += "#" + strconv.Itoa(i)
		}
	}
}

// onlineCPUs reads /sys/devices/system/cpu/online, else lists the cpuN directories.
func onlineCPUs(root string) []int {
	if b, err := os.ReadFile(root + "/sys/devices/system/cpu/online"); err == nil {
		if cpus, err := protocol.ParseCPUList(strings.TrimSpace(string(b))); err == nil {
			return cpus
		}
	}
	dirs, _ := filepath.Glob(root + "/sys/devices/system/cpu/cpu[0-9]*")
	var cpus []int
	for _, d := range dirs {
		if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "cpu")); err == nil && n <= protocol.MaxCPU {
			cpus = append(cpus, n)
		}
	}
	protocol.SortInts(cpus)
	return cpus
}

// policyOf maps each CPU to its cpufreq policy number, from every policyN/related_cpus.
func policyOf(root string) map[int]int {
	out := map[int]int{}
	dirs, _ := filepath.Glob(root + "/sys/devices/system/cpu/cpufreq/policy[0-9]*")
	for _, d := range dirs {
		n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "policy"))
		if err != nil {
			continue
		}
		b, err := os.ReadFile(d + "/related_cpus")
		if err != nil {
			continue
		}
		cpus, err := protocol.ParseCPUList(strings.TrimSpace(string(b)))
		if err != nil {
			continue
		}
		for _, c := range cpus {
			out[c] = n
		}
	}
	return out
}

// readSysInt reads one integer file, or def.
func readSysInt(path string, def int64) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return def
	}
	return n
}

// parseCPUParts reads the implementer and part of each "processor : N" block of /proc/cpuinfo. A kernel that
// prints them once for all (old 32-bit ARM: one "Processor" line, then the fields) gives every processor the
// same; x86 gives none.
func parseCPUParts(b []byte) map[int][2]string {
	out := map[int][2]string{}
	var cur []int
	var impl, part string
	flush := func() {
		for _, c := range cur {
			out[c] = [2]string{impl, part}
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(val)
		switch key {
		case "processor":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 || n > protocol.MaxCPU {
				continue
			}
			if part != "" && len(cur) > 0 {
				flush()
				cur, impl, part = nil, "", ""
			}
			cur = append(cur, n)
		case "cpu implementer":
			impl = strings.ToLower(val)
		case "cpu part":
			part = strings.ToLower(val)
		}
	}
	flush()
	return out
}
