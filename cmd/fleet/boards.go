package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
)

func boardsCommand() *cli.Command {
	return &cli.Command{
		Name:  "boards",
		Usage: "list the inventory, or check that boards are reachable and ready",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "the boards of the inventory with their tags, last-seen facts and who holds their leases",
				Description: `A run holds a board's lease while it measures it (see fleet run --lease-wait). The leases table lists
every lease in the database, those of boards of other controllers' inventories too; an expired lease's
controller stopped renewing it, and the next run that wants the board takes it over.`,
				Flags:  []cli.Flag{formatFlag(report.ViewBoards)},
				Action: boardsList,
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
							fmt.Fprintf(c.App.Writer, "%-14s FAIL  %s\n", r.Board, report.Printable(r.Err.Error()))
						} else {
							fmt.Fprintf(c.App.Writer, "%-14s ok    %s (%s)\n", r.Board, report.Printable(r.Summary), report.Printable(r.Deploy))
						}
						if r.Summary != "" { // the probe spoke: what a run would measure, and what it cannot
							for _, l := range modeSummary(r.Modes, false, strings.Repeat(" ", 21)) {
								fmt.Fprintln(c.App.Writer, l)
							}
							for _, l := range powerSummary(r.Power, strings.Repeat(" ", 21)) {
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

// boardsList prints the inventory with each board's last-seen facts and lease, from the database when there is
// one; without it every board is "never" seen and free.
func boardsList(c *cli.Context) error {
	inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
	if err != nil {
		return usageErr("%w", err)
	}
	var listing []report.BoardListing
	for _, b := range inv.Boards() {
		listing = append(listing, report.BoardListing{Name: b.Name, Host: b.Host, Local: b.Local, Arch: b.Arch, Tags: b.Tags})
	}
	var leases []protocol.Lease
	if !dbMissing(c) {
		db, err := openDB(c)
		if err != nil {
			return err
		}
		defer db.Close()
		if leases, err = db.Leases(c.Context); err != nil {
			return usageErr("%w", err)
		}
		host, _ := os.Hostname() // local's lease is this host's (local@host); other hosts' show in the leases table
		for i := range listing {
			if f, at, err := db.LatestFacts(c.Context, listing[i].Name); err == nil && f != nil {
				listing[i].Facts, listing[i].Seen = f, at
			}
			for j := range leases {
				if leases[j].Board == protocol.LeaseKey(listing[i].Name, host) {
					listing[i].Lease = &leases[j]
				}
			}
		}
	}
	return report.WriteBoards(c.App.Writer, listing, leases, c.String("format"))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
