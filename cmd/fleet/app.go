package main

import (
	"io"
	"os"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
)

// newApp builds the CLI. Tests run it in-process with buffers.
func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "fleet",
		Usage: "measure and compare the crypto performance of embedded Linux boards",
		Description: `fleet runs the same openssl speed sweeps on every board of an inventory (boards.toml) with and without
acceleration — pure software (soft), the default CPU path with NEON/ARM crypto extensions (cpu), the cryptodev
(devcrypto) and AF_ALG (afalg) engines, and the kernel crypto API directly (kcapi) — timed on the wall clock,
with the user and system CPU it cost. Results go to a SQLite file for comparison and regression checks.

   fleet run --boards local                 measure this machine (no boards.toml needed)
   fleet run --boards am335x,am64x --label nightly
   fleet compare --boards am64x              accelerator vs CPU, speedups and the crossover block size
   fleet regress --baseline nightly          verdicts against the last nightly run (exit 1 on regression)

` + exitCodesHelp,
		Reader:                 stdin,
		Writer:                 stdout,
		ErrWriter:              stderr,
		Flags:                  globalFlags(),
		HideHelpCommand:        true,
		UseShortOptionHandling: false,
		ExitErrHandler:         func(*cli.Context, error) {}, // main decides exit codes
		OnUsageError: func(c *cli.Context, err error, isSub bool) error {
			return usageErr("%w (see fleet --help)", err)
		},
		Commands: []*cli.Command{
			runCommand(),
			boardsCommand(),
			importCommand(),
			runsCommand(),
			resultsCommand(),
			historyCommand(),
			showCommand(),
			compareCommand(),
			regressCommand(),
			reportCommand(),
			serveCommand(),
		},
	}
	for _, cmd := range app.Commands {
		withGlobalFlags(cmd)
	}
	return app
}

// globals are the flags every command takes, before or after its name.
var globals = []struct{ name, alias, env, def, usage string }{
	{"inventory", "i", "FLEET_INVENTORY", "./" + inventory.DefaultPath, "the boards inventory `PATH`"},
	{"db", "", "FLEET_DB", "./fleet.db", "the results database `PATH` (SQLite)"},
}

func globalFlags() []cli.Flag {
	var flags []cli.Flag
	for _, g := range globals {
		f := &cli.StringFlag{Name: g.name, Value: g.def, EnvVars: []string{g.env}, Usage: g.usage}
		if g.alias != "" {
			f.Aliases = []string{g.alias}
		}
		flags = append(flags, f)
	}
	return flags
}

// withGlobalFlags lets --inventory and --db follow the command name too, as users type them.
func withGlobalFlags(cmd *cli.Command) {
	cmd.Flags = append(cmd.Flags, globalFlags()...)
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = func(c *cli.Context, err error, isSub bool) error {
			return usageErr("%w (see fleet %s --help)", err, cmd.Name)
		}
	}
	for _, sub := range cmd.Subcommands {
		withGlobalFlags(sub)
	}
}

// globalString is the value of a global flag wherever it was given: after the command name, before it, in the
// environment, or its default.
func globalString(c *cli.Context, name string) string {
	for _, cc := range c.Lineage() {
		if slices.Contains(cc.LocalFlagNames(), name) {
			return cc.String(name)
		}
	}
	for _, g := range globals {
		if g.name == name {
			if v := os.Getenv(g.env); v != "" {
				return v
			}
			return g.def
		}
	}
	return ""
}

// inventoryExplicit says whether the user named an inventory; a missing default ./boards.toml is not an error.
func inventoryExplicit(c *cli.Context) bool {
	for _, cc := range c.Lineage() {
		if slices.Contains(cc.LocalFlagNames(), "inventory") {
			return true
		}
	}
	return os.Getenv("FLEET_INVENTORY") != ""
}
