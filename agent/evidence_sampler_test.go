package agent

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestSystemSamplerMatchesSampleSystem: the sampler that keeps its files open reads what sampleSystem reads, on
// the fixture boards (cpufreq with time_in_state, thermal zones with trips, hwmon) and on this machine.
func TestSystemSamplerMatchesSampleSystem(t *testing.T) {
	for _, root := range []string{"testdata/evidence/rk3399-before", "testdata/evidence/rk3399-after", ""} {
		r := newSystemSampler(root)
		for i := 0; i < 2; i++ { // the second reading is from the files kept open
			got, want := r.sample(), sampleSystem(root)
			for _, s := range []*systemSample{&got, &want} {
				s.Ev.at, s.Ev.tree = s.Ev.at.Round(0).Truncate(1<<62), 0
				if root == "" { // this machine's counters move between the two readings
					s.CPU, s.Ev.stat, s.IRQs, s.Ev.load, s.Ev.swapIn, s.Ev.swapOut = cpuTimes{}, nil, nil, 0, 0, 0
					for k := range s.Ev.policies {
						s.Ev.policies[k].curKHz, s.Ev.policies[k].timeInState = 0, nil
					}
					for k := range s.Ev.temps {
						s.Ev.temps[k].mc = 0
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q reading %d:\nsampler      %+v\nsampleSystem %+v", root, i, got, want)
			}
		}
		r.close()
	}
}

// TestSystemSamplerRereads: a file kept open is read anew each time, and one that was missing stays unknown.
func TestSystemSamplerRereads(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	load := filepath.Join(root, "proc", "loadavg")
	if err := os.WriteFile(load, []byte("0.50 0.40 0.30 1/100 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newSystemSampler(root)
	defer r.close()
	if s := r.sample(); !s.Ev.loadOK || s.Ev.load != 0.5 || s.Ev.swapOK || s.CPUOK {
		t.Fatalf("first reading load %v ok %v, swap ok %v, cpu ok %v; want 0.5 and nothing else", s.Ev.load, s.Ev.loadOK, s.Ev.swapOK, s.CPUOK)
	}
	if err := os.WriteFile(load, []byte("12.25 0.40 0.30 1/100 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := r.sample(); s.Ev.load != 12.25 {
		t.Errorf("second reading load %v, want the file's new 12.25", s.Ev.load)
	}
}
