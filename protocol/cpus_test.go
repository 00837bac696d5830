package protocol

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"0-3,5", "0-3,5", ""},
		{"5,0-3", "0-3,5", ""},
		{"4 5\n", "4-5", ""}, // cpufreq related_cpus
		{"7", "7", ""},
		{"0-1,2-3", "0-3", ""},
		{"", "", "no CPU named"},
		{"3-1", "", "runs backwards"},
		{"1,1", "", "named twice"},
		{"0-2,2", "", "named twice"},
		{"-1", "", "not a CPU number"},
		{"+1", "", "not a CPU number"},
		{"a", "", "not a CPU number"},
		{"8192", "", "past 8191"},
		{"0-99999999999", "", "past 8191"},
		{"0-999999999999999999999", "", "not a CPU number"},
	} {
		got, err := ParseCPUList(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseCPUList(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || FormatCPUList(got) != tc.want {
			t.Errorf("ParseCPUList(%q) = %v, %v; want %s", tc.in, got, err, tc.want)
		}
	}
}

func TestCheckCPUs(t *testing.T) {
	for _, ok := range []string{"", "big", "little", "all", "each", "0-3", "4,5"} {
		if err := CheckCPUs(ok); err != nil {
			t.Errorf("CheckCPUs(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"BIG", "fast", "0-", "1,1", "each,1"} {
		err := CheckCPUs(bad)
		if err == nil || !strings.Contains(err.Error(), "expected big, little, all, each, or a CPU list") {
			t.Errorf("CheckCPUs(%q) = %v, want a refusal naming the choices", bad, err)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3,5", "4 5", "0", "1-0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		again, err := ParseCPUList(FormatCPUList(cpus))
		if err != nil || FormatCPUList(again) != FormatCPUList(cpus) {
			t.Errorf("%q: %v does not survive formatting (%v)", s, cpus, err)
		}
	})
}

func TestSortInts(t *testing.T) {
	for _, in := range [][]int{nil, {3}, {3, 1, 2}, {5, 5, 1, 0, 9, 2, 2}, {7, 6, 5, 4, 3, 2, 1, 0}} {
		got := slices.Clone(in)
		SortInts(got)
		want := slices.Clone(in)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("SortInts(%v) = %v, want %v", in, got, want)
		}
	}
}
