package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// groupAction is the action of a command group (fleet itself, fleet db, fleet boards): without an argument
// it shows the group's help; with one, that is not any of its commands, it refuses it naming the group and
// what it has (exit 2). urfave/cli would otherwise take the word for a help topic ("No help topic for 'drop'").
func groupAction(name string, commands func() []*cli.Command) cli.ActionFunc {
	return func(c *cli.Context) error {
		if !c.Args().Present() {
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
		return usageErr("unknown command %q for %q (commands: %s; see %s --help)", c.Args().First(), name,
			strings.Join(names, ", "), name)
	}
}

// refuseUnknownCommands gives app and every command with subcommands groupAction.
func refuseUnknownCommands(app *cli.App) {
	app.Action = groupAction("fleet", func() []*cli.Command { return app.Commands })
	var walk func(cmds []*cli.Command, prefix string)
	walk = func(cmds []*cli.Command, prefix string) {
		for _, cmd := range cmds {
			if len(cmd.Subcommands) > 0 && cmd.Action == nil {
				cmd.Action = groupAction(prefix+" "+cmd.Name, func() []*cli.Command { return cmd.Subcommands })
			}
			walk(cmd.Subcommands, prefix+" "+cmd.Name)
		}
	}
	walk(app.Commands, "fleet")
}
