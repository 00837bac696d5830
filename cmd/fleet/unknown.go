package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
)

// groupAction is the action of a command group (fleet itself, fleet db, fleet boards): without an argument
// it shows the group's help; "help [COMMAND]" shows the group's or that command's help, as git and go do;
// any other word, not one of its commands, is refused naming the group, the nearest command and what it has
// (exit 2). urfave/cli would otherwise take the word for a help topic ("No help topic for 'drop'").
func groupAction(name string, commands func() []*cli.Command) cli.ActionFunc {
	return func(c *cli.Context) error {
		args := c.Args().Slice()
		if len(args) == 0 || len(args) == 1 && args[0] == "help" {
			if c.Command == nil || c.Command.Name == "" {
				return cli.ShowAppHelp(c)
			}
			return cli.ShowSubcommandHelp(c)
		}
		var names []string
		for _, cmd := range commands() {
			if !cmd.Hidden && cmd.Name != "help" {
				names = append(names, cmd.Name)
			}
		}
		word := args[0]
		if word == "help" {
			word = args[1]
			if slices.Contains(names, word) && len(args) == 2 {
				return cli.ShowCommandHelp(c, word)
			}
		}
		return usageErr("unknown command %q for %q%s (commands: %s; see %s --help)", word, name,
			inventory.DidYouMean(word, names), strings.Join(names, ", "), name)
	}
}

// refuseUnknownCommands gives app and every command with subcommands groupAction, and hides urfave/cli's own
// help command, which answers an unknown topic in its words.
func refuseUnknownCommands(app *cli.App) {
	app.Action = groupAction("fleet", func() []*cli.Command { return app.Commands })
	var walk func(cmds []*cli.Command, prefix string)
	walk = func(cmds []*cli.Command, prefix string) {
		for _, cmd := range cmds {
			if len(cmd.Subcommands) > 0 && cmd.Action == nil {
				cmd.Action = groupAction(prefix+" "+cmd.Name, func() []*cli.Command { return cmd.Subcommands })
				cmd.HideHelpCommand = true
			}
			walk(cmd.Subcommands, prefix+" "+cmd.Name)
		}
	}
	walk(app.Commands, "fleet")
}

// undefinedFlag is how Go's flag package, which urfave/cli parses with, says a flag is not defined. It has no
// error type or sentinel for it: its message is the only form it comes in.
const undefinedFlag = "flag provided but not defined: "

// flagUsageErr rewrites a usage error of command name (its flags are flags) in fleet's words: an unknown flag
// names the nearest of the command's own flags ("did you mean --boards?"). Every other error keeps its text.
func flagUsageErr(err error, name string, flags []cli.Flag) error {
	typed, ok := strings.CutPrefix(err.Error(), undefinedFlag)
	if !ok {
		// urfave/cli puts `invalid value "2" for flag -run: ` before what a flag's own check said; when that
		// names the flag already, the prefix only says it twice
		msg := err.Error()
		if _, rest, cut := strings.Cut(msg, `" for flag -`); cut && strings.HasPrefix(msg, `invalid value "`) {
			if flag, own, ok := strings.Cut(rest, ": "); ok && strings.HasPrefix(own, "--"+flag) {
				return usageErr("%s (see %s --help)", own, name)
			}
		}
		return usageErr("%w (see %s --help)", err, name)
	}
	var known []string
	for _, f := range flags {
		for _, n := range f.Names() {
			if len(n) > 1 { // -j, -b: a one-letter alias is never what a misspelt word was near
				known = append(known, "--"+n)
			}
		}
	}
	bare := "--" + strings.TrimLeft(typed, "-")
	return usageErr("unknown flag %s for %q%s (see %s --help)", typed, name, inventory.DidYouMean(bare, known), name)
}

// requireFlags takes over urfave/cli's required flags, which print the whole help on stdout before their error:
// a command missing one says which on stderr with a one-line usage (exit 2). The flags keep "required" in
// their help.
func requireFlags(cmd *cli.Command, name string) {
	var required []cli.Flag
	for _, f := range cmd.Flags {
		if rf, ok := f.(cli.RequiredFlag); ok && rf.IsRequired() {
			required = append(required, f)
		}
	}
	if len(required) == 0 {
		return
	}
	usage := name
	for _, f := range required {
		sf, ok := f.(*cli.StringFlag)
		if !ok {
			panic(fmt.Sprintf("%s: required flag %s is not a string flag", name, f.Names()[0]))
		}
		sf.Required = false
		placeholder, _ := unquoted(sf.Usage)
		sf.Usage += " (required)"
		usage += fmt.Sprintf(" --%s %s", sf.Name, placeholder)
	}
	usage += " [options]"
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		var missing []string
		for _, f := range required {
			if !c.IsSet(f.Names()[0]) {
				missing = append(missing, "--"+f.Names()[0])
			}
		}
		if len(missing) > 0 {
			return &exitError{code: exitUsage, err: errors.New(strings.TrimPrefix(name, "fleet ") + ": missing " +
				strings.Join(missing, " and ") + "\nusage: " + usage + " (see " + name + " --help)")}
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}

// unquoted is the placeholder a usage names in backquotes (urfave/cli's convention), "VALUE" when none.
func unquoted(usage string) (string, bool) {
	_, rest, ok := strings.Cut(usage, "`")
	if !ok {
		return "VALUE", false
	}
	p, _, ok := strings.Cut(rest, "`")
	return p, ok
}
