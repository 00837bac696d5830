package agent

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// cpuTimes is the aggregate "cpu" line of /proc/stat, in clock ticks.
type cpuTimes struct {
	Busy, Total uint64
}

// parseProcStat reads the aggregate "cpu" line of /proc/stat. Idle and iowait count as not busy.
func parseProcStat(r io.Reader) (cpuTimes, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 || f[0] != "cpu" {
			continue
		}
		var t cpuTimes
		for i, s := range f[1:] {
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return cpuTimes{}, fmt.Errorf("parse /proc/stat cpu field %d %q: %w", i+1, s, err)
			}
			// guest and guest_nice (fields 9 and 10) are already counted in user and nice
			if i >= 8 {
				break
			}
			t.Total += v
			if i != 3 && i != 4 { // idle, iowait
				t.Busy += v
			}
		}
		return t, nil
	}
	if err := sc.Err(); err != nil {
		return cpuTimes{}, fmt.Errorf("read /proc/stat: %w", err)
	}
	return cpuTimes{}, fmt.Errorf("parse /proc/stat: no cpu line")
}

// busyPct is the share of all cores that were busy between two samples, 100 = every core busy all the time.
func busyPct(before, after cpuTimes) (float64, bool) {
	if after.Total <= before.Total || after.Busy < before.Busy {
		return 0, false
	}
	p := float64(after.Busy-before.Busy) / float64(after.Total-before.Total) * 100
	if p > 100 {
		p = 100
	}
	return p, true
}

// cryptoIRQWords are substrings of /proc/interrupts device names that belong to crypto engines.
var cryptoIRQWords = []string{
	"crypto", "caam", "sa2ul", "omap-aes", "omap-sham", "omap-des", "sahara", "mxs-dcp", "talitos", "atmel-aes",
	"atmel-sha", "atmel-tdes", "sun4i-ss", "sun8i-ce", "sun8i-ss", "rk-crypto", "rk3288-crypto", "stm32-cryp",
	"stm32-hash", "qce", "ccp", "qat", "safexcel", "inside-secure", "eip97", "eip197", "cesa", "mv_crypto", "ccree",
	"artpec", "img-hash", "hisi_sec", "hisi-sec", "keembay-ocs", "aspeed-hace", "zynqmp-aes", "amlogic-gxl-crypto",
	"dcp", "spacc", "virtio-crypto",
}

// isCryptoIRQName reports whether an interrupt's device name looks like a crypto engine.
func isCryptoIRQName(name string) bool {
	name = strings.ToLower(name)
	for _, w := range cryptoIRQWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	// "sec" alone would match "secure" and friends; accept it only as a whole word or a prefix like "sec-0".
	for _, tok := range strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' }) {
		if tok == "sec" || strings.HasPrefix(tok, "sec-") || strings.HasPrefix(tok, "sec_") || strings.HasPrefix(tok, "sec@") ||
			strings.HasPrefix(tok, "sec2") || strings.HasPrefix(tok, "sec4") {
			return true
		}
	}
	return false
}

// irqLine is one /proc/interrupts line that looks like a crypto device.
type irqLine struct {
	IRQ   string // "45"
	Count int64  // sum over all CPUs
	Text  string // the whole line, spaces squeezed
}

// parseCryptoInterrupts returns the /proc/interrupts lines whose device name looks like a crypto engine.
func parseCryptoInterrupts(r io.Reader) ([]irqLine, error) {
	var out []irqLine
	sc := bufio.NewScanner(r)
	// read once or twice per point: start small (a line is a few hundred bytes) and grow for many-CPU machines
	sc.Buffer(make([]byte, 0, 4<<10), 1<<20)
	first := true
	for sc.Scan() {
		if first { // the CPU0 CPU1 ... header
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		if len(f) < 2 || !strings.HasSuffix(f[0], ":") {
			continue
		}
		var sum int64
		i := 1
		for ; i < len(f); i++ {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				break
			}
			sum += v
		}
		rest := strings.Join(f[i:], " ")
		if rest == "" || !isCryptoIRQName(rest) {
			continue
		}
		out = append(out, irqLine{IRQ: strings.TrimSuffix(f[0], ":"), Count: sum, Text: strings.Join(f, " ")})
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read /proc/interrupts: %w", err)
	}
	return out, nil
}

// irqDelta sums the increase of each crypto interrupt between two samples. An IRQ only in after counts from 0.
func irqDelta(before, after []irqLine) int64 {
	// Per IRQ on both sides, the last line wins: a text naming one IRQ twice (never the kernel's, but a fuzzer's)
	// must not count one line's total as the other's delta.
	prev := make(map[string]int64, len(before))
	for _, l := range before {
		prev[l.IRQ] = l.Count
	}
	cur := make(map[string]int64, len(after))
	for _, l := range after {
		cur[l.IRQ] = l.Count
	}
	var d int64
	for irq, c := range cur {
		if n := c - prev[irq]; n > 0 {
			d += n
		}
	}
	return d
}
