package main

import (
	"io"
	"os"
	"slices"
	"strings"

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
with the user and system CPU it cost. Results go to a SQLite file (--db PATH), or to a PostgreSQL database a
lab shares (--db postgres://user@host/db), for comparison and regression checks.

   fleet run --boards local                 measure this machine (no boards.toml needed)
   fleet run --boards am335x,am64x --label nightly
   fleet compare --boards am64x              accelerator vs CPU, speedups and the crossover block size
   fleet run --tag nightly --profile nightly --label nightly
   fleet regress --baseline nightly          verdicts against each board's last 10 valid nightly runs

` + exitCodesHelp,
		Reader:                 stdin,
		Writer:                 stdout,
		ErrWriter:              stderr,
		Flags:                  globalFlags(),
		Version:                strings.TrimPrefix(strings.TrimSuffix(versionText(), "\n"), "fleet version "),
		HideHelpCommand:        true,
		UseShortOptionHandling: false,
		ExitErrHandler:         func(*cli.Context, error) {}, // main decides exit codes
		OnUsageError: func(c *cli.Context, err error, isSub bool) error {
			return flagUsageErr(err, "fleet", globalFlags())
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
			changesCommand(),
			reportCommand(),
			serveCommand(),
			dbCommand(),
			versionCommand(),
		},
	}
	refuseUnknownCommands(app)
	decimalIntFlags(app)
	for _, cmd := range app.Commands {
		withGlobalFlags(cmd, cmd.Name)
	}
	fitHelp(app)
	return app
}

// globals are the flags every command takes, before or after its name.
var globals = []struct{ name, alias, env, def, usage string }{
	{"inventory", "i", "FLEET_INVENTORY", "./" + inventory.DefaultPath, "the boards inventory `PATH`"},
	{"db", "", "FLEET_DB", "./fleet.db", "the results database: a file `PATH` (SQLite, created if needed) or a " +
		"postgres://user@host/db URL (PostgreSQL, shared by a lab; the password best in PGPASSWORD or ~/.pgpass, never printed)"},
}

// globalFlags are the global flags, for the app and again for each command. None reads the environment itself:
// urfave/cli would count a variable as the flag given, so a command's copy would beat the flag typed before the
// command name. globalString reads the environment after every typed flag instead.
func globalFlags() []cli.Flag {
	var flags []cli.Flag
	for _, g := range globals {
		name := g.name
		f := &cli.StringFlag{Name: name, Value: g.def, Usage: g.usage + " (env " + g.env + ")",
			Action: func(c *cli.Context, v string) error {
				if strings.TrimSpace(v) == "" {
					return usageErr("--%s: empty path", name)
				}
				return nil
			}}
		if g.alias != "" {
			f.Aliases = []string{g.alias}
		}
		flags = append(flags, f)
	}
	return flags
}

// withGlobalFlags lets --inventory and --db follow the command name too, as users type them.
// It also refuses positional arguments for the commands that take none.
// name is the command's name as typed after fleet ("boards list").
// A command that defines a flag of the same name itself (db copy's hidden --db, which it refuses) keeps its own.
func withGlobalFlags(cmd *cli.Command, name string) {
	for _, f := range globalFlags() {
		if !slices.ContainsFunc(cmd.Flags, func(own cli.Flag) bool { return own.Names()[0] == f.Names()[0] }) {
			cmd.Flags = append(cmd.Flags, f)
		}
	}
	refuseArgs(cmd, name)
	refuseEmptyValues(cmd, name)
	requireFlags(cmd, "fleet "+name)
	if cmd.OnUsageError == nil {
		cmd.OnUsageError = func(c *cli.Context, err error, isSub bool) error {
			return flagUsageErr(err, "fleet "+name, cmd.Flags)
		}
	}
	for _, sub := range cmd.Subcommands {
		withGlobalFlags(sub, name+" "+sub.Name)
	}
}

// globalString is the value of a global flag wherever it was given, in this order: after the command name, before
// it, in the environment, or its default. A flag the user typed always beats the environment.
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

// refuseEmptyValues makes a flag given with an empty value (--fail-on-drop "$UNSET", as an unset CI variable
// expands) a usage error instead of "not given": a gate must not turn itself off, and a filter must not widen to
// everything. Flags whose own check already refuses an empty value are unaffected.
func refuseEmptyValues(cmd *cli.Command, name string) {
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		for _, f := range cmd.Flags {
			n := f.Names()[0]
			if !slices.Contains(c.LocalFlagNames(), n) {
				continue
			}
			var empty bool
			switch f.(type) {
			case *cli.StringFlag, *cli.PathFlag, *onceString:
				empty = strings.TrimSpace(c.String(n)) == ""
			case *cli.StringSliceFlag:
				empty = len(splitList(c.StringSlice(n))) == 0
			}
			if empty {
				return usageErr("%s --%s: empty value; leave the flag out for its default", name, n)
			}
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}
