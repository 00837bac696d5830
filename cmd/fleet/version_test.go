package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionFromBuildInfo reads build information as `go version -m` prints it and checks that fleet's
// version text gives the module version and the whole commit, and says when the tree was modified or when the
// binary has no VCS stamp at all.
func TestVersionFromBuildInfo(t *testing.T) {
	const stamped = "go\tgo1.26.8\npath\tgithub.com/fleetlab/fleet/cmd/fleet\nmod\tgithub.com/fleetlab/fleet\t(devel)\t\n" +
		"build\t-buildmode=exe\nbuild\tvcs=git\nbuild\tvcs.revision=cb85317c6d065307de7661ad0a5419ddb61cb66b\n" +
		"build\tvcs.time=2026-12-06T09:12:44Z\nbuild\tvcs.modified=true\n"
	const installed = "go\tgo1.26.8\npath\tgithub.com/fleetlab/fleet/cmd/fleet\n" +
		"mod\tgithub.com/fleetlab/fleet\tv1.4.0\th1:abc=\n"
	for _, tc := range []struct {
		name, info, short string
		want              []string
	}{
		{"source build, modified", stamped, "cb85317c6d06+dirty", []string{
			"fleet version cb85317c6d06+dirty\n",
			"   module  github.com/fleetlab/fleet (devel)\n",
			"   commit  cb85317c6d065307de7661ad0a5419ddb61cb66b, 2026-12-06T09:12:44Z\n",
			"           modified: built from a tree with uncommitted changes\n",
			"   go      go1.26.8\n"}},
		{"go install of a tag", installed, "v1.4.0", []string{
			"fleet version v1.4.0\n", "   module  github.com/fleetlab/fleet v1.4.0\n",
			"   commit  unknown: no VCS stamp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bi, err := debug.ParseBuildInfo(tc.info)
			if err != nil {
				t.Fatal(err)
			}
			bi.GoVersion = "go1.26.8" // ParseBuildInfo leaves the toolchain line to the caller
			b := buildOf(bi)
			if got := b.short(); got != tc.short {
				t.Errorf("short() = %q, want %q", got, tc.short)
			}
			got := b.String()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("version text lacks %q:\n%s", w, got)
				}
			}
			for _, line := range strings.Split(got, "\n") {
				if len([]rune(line)) > 100 {
					t.Errorf("line of %d columns: %q", len([]rune(line)), line)
				}
			}
		})
	}
}

// TestVersionFlagAndCommand: fleet --version, fleet -v and fleet version print this binary's build (the test
// binary's: module github.com/fleetlab/fleet), exit 0, and nothing on stderr.
func TestVersionFlagAndCommand(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		stdout, stderr, code := runFleet(t, args...)
		if code != 0 || stderr != "" {
			t.Errorf("fleet %v: exit %d, stderr %q", args, code, stderr)
		}
		if !strings.HasPrefix(stdout, "fleet version ") || !strings.Contains(stdout, "module  github.com/fleetlab/fleet") ||
			!strings.Contains(stdout, "   commit  ") || !strings.Contains(stdout, "   go      go1.") {
			t.Errorf("fleet %v printed:\n%s", args, stdout)
		}
	}
	if _, stderr, code := runFleet(t, "version", "extra"); code != 2 {
		t.Errorf("fleet version extra: exit %d (%s), want 2", code, stderr)
	}
}
