package report

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestWriteResultsPinned: a pinned point's JSON row carries the CPUs it ran on, its cluster and how busy its
// CPUs and the others were; an unpinned one has none of these keys, so its rows read as they did.
func TestWriteResultsPinned(t *testing.T) {
	ms := s00()[:2]
	ms[0].CPUs, ms[0].Cluster, ms[0].PinnedBusyPct, ms[0].OtherBusyPct = "4-5", "A72", 98.5, 2.25
	var b bytes.Buffer
	if err := WriteResults(&b, ms, "json"); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(b.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{"cpus": "4-5", "cluster": "A72", "pinned_busy_pct": 98.5, "other_busy_pct": 2.25} {
		if got := rows[0][key]; got != want {
			t.Errorf("pinned row %s = %v, want %v", key, got, want)
		}
		if got, ok := rows[1][key]; ok {
			t.Errorf("unpinned row has %s = %v, want no such key", key, got)
		}
	}
}
