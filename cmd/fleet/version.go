package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// toolVersion is the module version of an installed binary, or the VCS revision of a source build.
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return buildOf(bi).short()
}

// build is what the binary says about where it came from: what `go version -m` prints of it.
type build struct {
	module, version string // the main module and its version ("(devel)" for a source build)
	revision        string // vcs.revision, "" when the build was not stamped (-buildvcs=false, no git checkout)
	time            string // vcs.time
	modified        bool   // vcs.modified: the work tree had uncommitted changes
	goVersion       string
}

func buildOf(bi *debug.BuildInfo) build {
	b := build{module: bi.Main.Path, version: bi.Main.Version, goVersion: bi.GoVersion}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.revision = s.Value
		case "vcs.time":
			b.time = s.Value
		case "vcs.modified":
			b.modified = s.Value == "true"
		}
	}
	return b
}

// short is what a run records as its tool version: the module version of an installed binary, else the
// revision (12 digits, "+dirty" when modified), else "devel".
func (b build) short() string {
	if v := b.version; v != "" && v != "(devel)" {
		return v
	}
	rev := b.revision
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if b.modified {
		rev += "+dirty"
	}
	return rev
}

// String is the text of fleet --version and fleet version: the module and its version, the commit (whole, with
// its time and whether the tree was modified) or why there is none, and the Go toolchain.
func (b build) String() string {
	var s strings.Builder
	version := b.version
	if version == "" {
		version = "(unknown)"
	}
	module := b.module
	if module == "" {
		module = "github.com/fleetlab/fleet"
	}
	fmt.Fprintf(&s, "fleet version %s\n", b.short())
	fmt.Fprintf(&s, "   module  %s %s\n", module, version)
	switch {
	case b.revision == "":
		s.WriteString("   commit  unknown: no VCS stamp (built with -buildvcs=false or outside a git checkout)\n")
	default:
		fmt.Fprintf(&s, "   commit  %s", b.revision)
		if b.time != "" {
			fmt.Fprintf(&s, ", %s", b.time)
		}
		if b.modified {
			s.WriteString("\n           modified: built from a tree with uncommitted changes")
		}
		s.WriteString("\n")
	}
	if b.goVersion != "" {
		fmt.Fprintf(&s, "   go      %s\n", b.goVersion)
	}
	return s.String()
}

// versionText is what fleet --version and fleet version print. urfave/cli prints App.Version after
// "fleet version ", so the app takes this text without that prefix.
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "fleet version unknown: the binary carries no build information\n"
	}
	return buildOf(bi).String()
}

// versionCommand is fleet version, the same text as fleet --version.
func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "the module version and commit of this binary (as go version -m shows them)",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprint(c.App.Writer, versionText())
			return err
		},
	}
}
