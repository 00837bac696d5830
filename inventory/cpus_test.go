package inventory

import (
	"strings"
	"testing"
)

// TestCPUsKeys: cpus of a board and of a profile are read, and a bad value is refused at its file:line:col.
func TestCPUsKeys(t *testing.T) {
	inv := mustParse(t, `
[boards.rk]
host = "rk.lab"
cpus = "big"

[profiles.clusters]
algorithms = ["aes-128-cbc"]
cpus = "each"
cluster_threads = true
`)
	bs, err := inv.Select([]string{"rk"}, nil, false)
	if err != nil || len(bs) != 1 || bs[0].CPUs != "big" {
		t.Fatalf("board rk = %+v, %v; want cpus big", bs, err)
	}
	if b := bs[0]; b.CPUs != "big" {
		t.Errorf("board rk cpus = %q, want big", b.CPUs)
	}
	p, err := inv.Profile("clusters")
	if err != nil || p.CPUs != "each" || !p.ClusterThreads {
		t.Errorf("profile clusters = %+v, %v; want cpus each, cluster_threads", p, err)
	}
	for _, tc := range []struct{ doc, want string }{
		{"[boards.rk]\nhost = \"rk.lab\"\ncpus = \"fast\"\n",
			`boards.toml:3:8: board "rk": cpus "fast": "fast" is not a CPU number (expected big, little, all, each, or a CPU list such as 0-3,5)`},
		{"[boards.rk]\nhost = \"rk.lab\"\ncpus = \"3-1\"\n", `boards.toml:3:8: board "rk": cpus "3-1": range 3-1 runs backwards`},
		{"[profiles.p]\nalgorithms = [\"sha256\"]\ncpus = \"0,0\"\n", `boards.toml:3:8: profile "p": cpus "0,0": CPU 0 named twice`},
		{"[profiles.p]\nalgorithms = [\"sha256\"]\ncpus = 4\n", "boards.toml:3:8"},
	} {
		_, err := parseTest(t, "boards.toml", tc.doc)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error = %v, want %q", tc.doc, err, tc.want)
		}
	}
}

func TestValidateProfileCPUs(t *testing.T) {
	p := Profile{Name: "x", Algorithms: []string{"sha256"}, Sizes: DefaultSizes(), Seconds: 1, Threads: 1, Repeats: 1}
	p.CPUs = "big,1"
	if err := ValidateProfile(p); err == nil || !strings.Contains(err.Error(), `cpus "big,1"`) {
		t.Errorf("ValidateProfile(cpus big,1) = %v, want a refusal", err)
	}
	p.CPUs, p.ClusterThreads = "", true
	if err := ValidateProfile(p); err == nil || !strings.Contains(err.Error(), "cluster_threads needs cpus") {
		t.Errorf("ValidateProfile(cluster_threads alone) = %v, want a refusal", err)
	}
	p.CPUs = "little"
	if err := ValidateProfile(p); err != nil {
		t.Errorf("ValidateProfile(little, cluster_threads) = %v", err)
	}
}
