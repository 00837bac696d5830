package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/store"
)

func boardsCommand() *cli.Command {
	return &cli.Command{
		Name:  "boards",
		Usage: "list the inventory, or check that boards are reachable and ready",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "the boards of the inventory with their tags and last-seen facts",
				Action: func(c *cli.Context) error {
					inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
					if err != nil {
						return usageErr("%w", err)
					}
					// Last-seen facts come from the database when there is one; without it every board is "never".
					var db *store.DB
					if !dbMissing(c) {
						if db, err = openDB(c); err != nil {
							return err
						}
						defer db.Close()
					}
					w := c.App.Writer
					fmt.Fprintf(w, "%-14s %-16s %-7s %-20s %s\n", "BOARD", "HOST", "ARCH", "TAGS", "LAST SEEN")
					for _, b := range inv.Boards() {
						host := b.Host
						if b.Local {
							host = "(this machine)"
						}
						seen := "never"
						if db == nil {
							// no database yet
						} else if f, at, err := db.LatestFacts(c.Context, b.Name); err == nil && f != nil {
							seen = fmt.Sprintf("%s: %s, Linux %s, OpenSSL %s", at.Local().Format("2006-01-02 15:04"), f.Machine, f.Kernel, f.OpenSSLVersion)
						}
						fmt.Fprintf(w, "%-14s %-16s %-7s %-20s %s\n", b.Name, host, dash(b.Arch), dash(strings.Join(b.Tags, ",")), seen)
					}
					return nil
				},
			},
			{
				Name:  "check",
				Usage: "connect, detect the arch, deploy the agent and probe: one line per board",
				Description: `Exit 0 when every board is ready, 3 when any is not. Each failing board says why: unreachable,
auth failed, host key mismatch (with the known_hosts line), push failed, probe failed.`,
				Flags: append(selectionFlags(), sshFlags()...),
				Action: func(c *cli.Context) error {
					_, boards, err := loadSelection(c, false)
					if err != nil {
						return err
					}
					logf := func(string, ...any) {}
					agents := &fleet.Agents{Path: c.String("agent"), Logf: logf}
					results := fleet.Check(c.Context, fleet.CheckOptions{Boards: boards, Concurrency: c.Int("concurrency"),
						Dial: dialer(c, logf), Agent: agents.For})
					failed := 0
					for _, r := range results {
						if r.Err != nil {
							failed++
							fmt.Fprintf(c.App.Writer, "%-14s FAIL  %s\n", r.Board, r.Err)
						} else {
							fmt.Fprintf(c.App.Writer, "%-14s ok    %s (%s)\n", r.Board, r.Summary, r.Deploy)
						}
						if r.Summary != "" { // the probe spoke: what a run would measure, and what it cannot
							for _, l := range modeSummary(r.Modes, false, strings.Repeat(" ", 21)) {
								fmt.Fprintln(c.App.Writer, l)
							}
						}
					}
					if c.Context.Err() != nil {
						return c.Context.Err()
					}
					if failed > 0 {
						return fmt.Errorf("%d of %d boards not ready: %w", failed, len(results), fleet.ErrBoardsFailed)
					}
					return nil
				},
			},
		},
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
