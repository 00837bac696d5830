package agent

import (
	"bufio"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/protocol"
)

// armCoreNames maps ARM Ltd (implementer 0x41) "CPU part" numbers to core names.
var armCoreNames = map[string]string{
	"0x926": "ARM926", "0x946": "ARM946", "0x966": "ARM966", "0xb02": "ARM11 MPCore", "0xb36": "ARM1136",
	"0xb56": "ARM1156", "0xb76": "ARM1176",
	"0xc05": "Cortex-A5", "0xc07": "Cortex-A7", "0xc08": "Cortex-A8", "0xc09": "Cortex-A9", "0xc0d": "Cortex-A12",
	"0xc0e": "Cortex-A17", "0xc0f": "Cortex-A15", "0xc14": "Cortex-R4", "0xc15": "Cortex-R5", "0xc20": "Cortex-M0",
	"0xc23": "Cortex-M3", "0xc24": "Cortex-M4",
	"0xd01": "Cortex-A32", "0xd02": "Cortex-A34", "0xd03": "Cortex-A53", "0xd04": "Cortex-A35", "0xd05": "Cortex-A55",
	"0xd06": "Cortex-A65", "0xd07": "Cortex-A57", "0xd08": "Cortex-A72", "0xd09": "Cortex-A73", "0xd0a": "Cortex-A75",
	"0xd0b": "Cortex-A76", "0xd0c": "Neoverse-N1", "0xd0d": "Cortex-A77", "0xd0e": "Cortex-A76AE", "0xd40": "Neoverse-V1",
	"0xd41": "Cortex-A78", "0xd44": "Cortex-X1", "0xd46": "Cortex-A510", "0xd47": "Cortex-A710", "0xd48": "Cortex-X2",
	"0xd49": "Neoverse-N2", "0xd4a": "Neoverse-E1", "0xd4b": "Cortex-A78C", "0xd4d": "Cortex-A715", "0xd4e": "Cortex-X3",
	"0xd4c": "Cortex-X1C", "0xd4f": "Neoverse-V2",
	"0xd80": "Cortex-A520", "0xd81": "Cortex-A720", "0xd82": "Cortex-X4",
}

// cpuFeaturesOfInterest are the /proc/cpuinfo flags that decide crypto speed. x86 "aes" is AES-NI. A list, not a
// map: a small map literal is code run at init (about 1 KB of the ARMv5 agent), a list is data.
var cpuFeaturesOfInterest = []string{
	"aes", "pmull", "sha1", "sha2", "sha3", "sha512", "neon",
	"asimd", "vfp", "vfpv4", "crc32", "sha_ni", "pclmulqdq", "avx",
	"avx2", "avx512f", "vaes", "vpclmulqdq", "ssse3", "sse4_2",
}

// armCoreName names an ARM core from its implementer and part numbers, or returns "".
func armCoreName(implementer, part string) string {
	implementer, part = strings.ToLower(implementer), strings.ToLower(part)
	if implementer != "" && implementer != "0x41" {
		return ""
	}
	return armCoreNames[part]
}

// parseCPUInfo reads /proc/cpuinfo: the model (model name, Processor, or the core named from "CPU part"),
// the number of processors and the crypto-relevant features.
func parseCPUInfo(r io.Reader) protocol.CPUFacts {
	var c protocol.CPUFacts
	var modelName, processor, hardware string
	features := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch strings.ToLower(key) {
		case "processor":
			// ARMv5..v7 kernels print "Processor : ARMv7 Processor rev 2 (v7l)"; every kernel also
			// prints "processor : N" once per CPU.
			if _, err := strconv.Atoi(val); err == nil {
				c.Cores++
			} else if processor == "" {
				processor = val
			}
		case "model name":
			if modelName == "" {
				modelName = val
			}
		case "hardware":
			hardware = val
		case "cpu mhz": // x86; cpufreq, where present, is more precise and overrides it
			if c.CurMHz == 0 {
				c.CurMHz, _ = strconv.ParseFloat(val, 64)
			}
		case "cpu implementer":
			if c.Implementer == "" {
				c.Implementer = val
			}
		case "cpu part":
			if c.Part == "" {
				c.Part = val
			}
		case "features", "flags":
			for _, f := range strings.Fields(val) {
				if slices.Contains(cpuFeaturesOfInterest, f) {
					features[f] = true
				}
			}
		}
	}
	core := armCoreName(c.Implementer, c.Part)
	switch {
	case core != "":
		c.Model = core
	case modelName != "" && !strings.HasPrefix(modelName, "ARMv"):
		c.Model = modelName
	case processor != "":
		c.Model = processor
	default:
		c.Model = modelName
	}
	if hardware != "" && c.Model != "" {
		c.Model += " (" + hardware + ")"
	}
	if c.Cores == 0 && (c.Model != "" || len(features) > 0) {
		c.Cores = 1
	}
	for f := range features {
		c.Features = append(c.Features, f)
	}
	sort.Strings(c.Features)
	return c
}

// hasCPUFeature reports whether f is among the features.
func hasCPUFeature(c protocol.CPUFacts, f string) bool {
	for _, g := range c.Features {
		if g == f {
			return true
		}
	}
	return false
}
