package report

import (
	"strings"
	"testing"

	"github.com/fleetlab/fleet/store"
)

// clusterPoints are repeats of one cipher point on board, mode and cluster ("" not pinned) at size.
func clusterPoints(board, mode, cluster, cpus string, size int, bps ...float64) []store.Measurement {
	var ms []store.Measurement
	for i, v := range bps {
		m := store.Measurement{RunID: 7, Board: board}
		m.Mode, m.Algorithm, m.Op, m.BlockSize, m.Threads, m.Repeat = mode, "aes-128-cbc", "encrypt", size, 1, i
		m.BytesPerSec, m.Seconds, m.Timing, m.CPUPct, m.Cluster, m.CPUs = v, 1, "wall", 99, cluster, cpus
		ms = append(ms, m)
	}
	return ms
}

// TestCompareClusters: the same board's cpu path pinned to its A53s and to its A72s are two columns, each
// accelerated mode's speedup and crossover are over the cpu path of its own cluster, and an unpinned history is a
// column of its own.
func TestCompareClusters(t *testing.T) {
	var ms []store.Measurement
	for _, size := range []int{16, 16384} {
		ms = append(ms, clusterPoints("rk3399", "cpu", "A53", "0-3", size, 100e6, 101e6, 99e6)...)
		ms = append(ms, clusterPoints("rk3399", "cpu", "A72", "4-5", size, 300e6, 301e6, 299e6)...)
		ms = append(ms, clusterPoints("rk3399", "cpu", "", "", size, 250e6)...)
	}
	// afalg's offload is one engine: small blocks lose to both cores, 16 KiB beats the A53s but not the A72s
	ms = append(ms, clusterPoints("rk3399", "afalg", "A53", "0-3", 16, 10e6)...)
	ms = append(ms, clusterPoints("rk3399", "afalg", "A53", "0-3", 16384, 200e6)...)
	ms = append(ms, clusterPoints("rk3399", "afalg", "A72", "4-5", 16, 10e6)...)
	ms = append(ms, clusterPoints("rk3399", "afalg", "A72", "4-5", 16384, 200e6)...)
	c, err := Compare(ms, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, col := range c.Columns {
		names = append(names, col.Name())
	}
	for _, want := range []string{"rk3399 cpu A53", "rk3399 cpu A72", "rk3399 cpu", "rk3399 afalg A53", "rk3399 afalg A72"} {
		if !strings.Contains(strings.Join(names, "|")+"|", want+"|") {
			t.Errorf("columns %q: no %q", names, want)
		}
	}
	var at16k *CompareRow
	for i := range c.Rows {
		if c.Rows[i].BlockSize == 16384 {
			at16k = &c.Rows[i]
		}
	}
	if at16k == nil {
		t.Fatal("no 16384 B row")
	}
	for _, tc := range []struct {
		cluster string
		want    float64
	}{{"A53", 2}, {"A72", 200.0 / 300}} {
		got, ok := at16k.speedup(SpeedupColumn{Board: "rk3399", Mode: "afalg", Over: "cpu", Cluster: tc.cluster})
		if !ok || got < tc.want*0.99 || got > tc.want*1.01 {
			t.Errorf("afalg/cpu on %s at 16 KiB = %.3f (%v), want %.3f", tc.cluster, got, ok, tc.want)
		}
	}
	crossings := map[string]string{}
	for _, x := range c.Crossovers {
		crossings[x.Cluster] = x.String()
	}
	if got, want := crossings["A53"], "rk3399 afalg aes-128-cbc on A53: 16384 B"; got != want {
		t.Errorf("A53 crossover %q, want %q", got, want)
	}
	if got, want := crossings["A72"], "rk3399 afalg aes-128-cbc on A72: never"; got != want {
		t.Errorf("A72 crossover %q, want %q", got, want)
	}
	if k := keyOf(ms[0]); k.Cluster != "A53" || !strings.HasSuffix(k.Label(), "on A53") {
		t.Errorf("key %+v label %q: want the cluster in the series", k, k.Label())
	}
}
