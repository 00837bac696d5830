package lab_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// virtioDriver is the driver virtio_crypto.ko registers for cbc(aes): the lab's offload device.
const virtioDriver = "virtio_crypto_aes_cbc"

// offloadPoint is the part of `fleet results --format json` the offload check reads.
type offloadPoint struct {
	Mode        string  `json:"mode"`
	BlockSize   int     `json:"block_size"`
	Driver      string  `json:"driver"`
	Failed      bool    `json:"failed"`
	BytesPerSec float64 `json:"bytes_per_sec"`
	CPUPct      float64 `json:"cpu_pct"`
}

// checkOffload measures kcapi:all beside cpu for aes-128-cbc on qemu-arm64, whose virtio-crypto device gives the
// kernel an asynchronous offload driver: at least two implementations including the virtio one, every point
// recorded with the driver its mode names; on the virtio driver the throughput rises with the block size and its
// CPU % at 16 KiB is below the cpu mode's (the work is done outside the guest's measuring thread); and
// `fleet compare` puts the virtio driver in the accelerator's place, with its crossover against cpu.
func checkOffload(t *testing.T, ctx context.Context, root, fleetBin, inv string) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "offload.db")
	cmd := exec.CommandContext(ctx, fleetBin, "--inventory", inv, "--db", db, "run", "--boards", "qemu-arm64",
		"--modes", "cpu,kcapi:all", "--algorithms", "aes-128-cbc", "--seconds", "1")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	t.Logf("$ fleet run --modes cpu,kcapi:all\n%s%s", out, stderr.String())
	if err != nil {
		t.Fatalf("fleet run --modes cpu,kcapi:all: %v", err)
	}
	if !regexp.MustCompile(`(?m)^\s+offload: ` + virtioDriver + `$`).MatchString(stderr.String()) {
		t.Errorf("fleet run: the summary does not name the offload driver (want \"offload: %s\")", virtioDriver)
	}
	var points []offloadPoint
	if err := json.Unmarshal([]byte(mustRun(t, ctx, nil, root, fleetBin, "--db", db, "results", "--format", "json")), &points); err != nil {
		t.Fatalf("results --format json: %v", err)
	}
	drivers := map[string]bool{}
	virtio := map[int]offloadPoint{}
	cpu := map[int]offloadPoint{}
	for _, p := range points {
		if p.Failed || p.BytesPerSec <= 0 {
			t.Errorf("point %s %d B: failed or no rate (%+v)", p.Mode, p.BlockSize, p)
			continue
		}
		if d, ok := strings.CutPrefix(p.Mode, "kcapi:"); ok {
			drivers[d] = true
			if p.Driver != d {
				t.Errorf("point %s %d B: driver %q, want %q", p.Mode, p.BlockSize, p.Driver, d)
			}
		}
		switch p.Mode {
		case "kcapi:" + virtioDriver:
			virtio[p.BlockSize] = p
		case "cpu":
			cpu[p.BlockSize] = p
		}
	}
	if len(drivers) < 2 || !drivers[virtioDriver] {
		t.Fatalf("kcapi:all measured the drivers %v, want at least two including %s", drivers, virtioDriver)
	}
	var sizes []int
	for s := range virtio {
		sizes = append(sizes, s)
	}
	sort.Ints(sizes)
	if len(sizes) < 2 {
		t.Fatalf("virtio driver: points at %v, want the profile's sizes", sizes)
	}
	// per-request cost dominates an offload device: a block 16 times larger moves more bytes per second, and the
	// largest many times more than the smallest. Neighbours (4×) are not compared: QEMU's device answers in 8 to
	// 40 ms a request, and on a loaded host 64 B was seen beating 256 B.
	for i := range sizes {
		for j := i + 1; j < len(sizes); j++ {
			if sizes[j] < 16*sizes[i] {
				continue
			}
			small, large := virtio[sizes[i]].BytesPerSec, virtio[sizes[j]].BytesPerSec
			if large <= small {
				t.Errorf("virtio driver: %.0f B/s at %d B, no more than %.0f B/s at %d B, want a rising throughput", large, sizes[j], small, sizes[i])
			}
		}
	}
	if lo, hi := virtio[sizes[0]].BytesPerSec, virtio[sizes[len(sizes)-1]].BytesPerSec; hi < 10*lo {
		t.Errorf("virtio driver: %.0f B/s at %d B against %.0f B/s at %d B, want ten times at least", hi, sizes[len(sizes)-1], lo, sizes[0])
	}
	v, c := virtio[16384], cpu[16384]
	if v.CPUPct <= 0 || c.CPUPct <= 0 || v.CPUPct >= c.CPUPct {
		t.Errorf("at 16384 B: virtio driver CPU %.0f %%, cpu mode %.0f %%, want the offload below the cpu path", v.CPUPct, c.CPUPct)
	}
	compare := mustRun(t, ctx, nil, root, fleetBin, "--db", db, "compare")
	if !regexp.MustCompile(`(?m)^\s+crossover over cpu: kcapi:` + virtioDriver + ` (never|\d+ B)`).MatchString(compare) {
		t.Errorf("compare: no crossover of kcapi:%s against cpu in\n%s", virtioDriver, compare)
	}
	// the offload driver heads the table, the CPU implementations through AF_ALG have no ×cpu column
	if first := regexp.MustCompile(`─ (\S+) ─`).FindStringSubmatch(compare); first == nil || first[1] != "kcapi:"+virtioDriver {
		t.Errorf("compare: the first mode is %v, want kcapi:%s (the accelerator):\n%s", first, virtioDriver, compare)
	}
}
