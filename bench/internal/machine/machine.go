// Package machine describes the machine a benchmark ran on, for the first line of its output: the figures of a
// shared, loaded machine mean little without it.
package machine

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// Describe is "machine: 2 CPUs (AMD EPYC), load average 0.54 0.86 1.71, go1.26.8, 2026-11-30T10:10:31Z".
func Describe() string {
	model := "?"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = strings.Join(f[:3], " ")
		}
	}
	return fmt.Sprintf("machine: %d CPUs (%s), load average %s, %s, %s", runtime.NumCPU(), model, load,
		runtime.Version(), time.Now().UTC().Format(time.RFC3339))
}
