package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
)

// compareReferenceFlags put measured boards beside a vendor's published table (fleet import --reference).
func compareReferenceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "reference", Usage: "put the run's boards beside the reference `LABEL` (fleet import --reference) instead of each other"},
		&cli.StringFlag{Name: "reference-board", Usage: "with --reference: compare every selected board with the reference's `BOARD`, whatever board it is (default: only the boards of its name or SoC)"},
	}
}

// compareReferenceUsage is the part of compare's description about --reference.
const compareReferenceUsage = `

With --reference LABEL, each measured series stands beside the reference's figure of the same mode, algorithm,
size and threads ("Accelerator" figures beside every accelerated mode). Only the boards the reference is for
are compared: the reference board of the same name, or of the same SoC (boards.toml's soc, else the name's
first word: am64x is the SoC of am64x-evm); other boards are named as not compared. --reference-board BOARD
compares every selected board (--boards) with the reference's BOARD on purpose:

   fleet compare --reference ti-am64x-sdk-12.00
   fleet compare --reference ti-am64x-sdk-12.00 --boards local --reference-board am64x-evm
   "am64x afalg aes-128-cbc 16384 B: 131.2 MB/s, 97 % of ti-am64x-sdk-12.00 (134.93), CPU 41 % (published 39 %)"`

// compareReference is fleet compare --reference LABEL.
func compareReference(c *cli.Context, db *store.DB) error {
	if c.IsSet("reference-board") && c.String("reference-board") == "" {
		return usageErr("--reference-board: empty board name")
	}
	ms, err := selectRun(c, db, c.String("run"))
	if err != nil {
		return err
	}
	run, refPoints, err := db.Reference(c.Context, c.String("reference"))
	if errors.Is(err, store.ErrNotFound) {
		return usageErr("compare --reference: %w", err)
	} else if err != nil {
		return err
	}
	socs, err := inventorySoCs(c)
	if err != nil {
		return err
	}
	cmp, err := report.CompareReference(ms, run, refPoints, report.ReferenceOptions{Board: c.String("reference-board"),
		Boards: splitList(c.StringSlice("boards")), Modes: splitList(c.StringSlice("modes")),
		Algorithms: splitList(c.StringSlice("algorithms")), Unit: c.String("unit"), SoCs: socs})
	if err != nil {
		return usageErr("compare --reference: %w", err)
	}
	if err := report.WriteReference(c.App.Writer, cmp, c.String("format")); err != nil {
		return usageErr("compare --reference: %w", err)
	}
	return nil
}

// inventorySoCs are the SoCs boards.toml gives its boards (soc = "AM64x"), by board: what a measured board is
// matched with a reference board by. No inventory (the default ./boards.toml missing) gives none.
func inventorySoCs(c *cli.Context) (map[string]string, error) {
	inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
	if err != nil {
		return nil, usageErr("compare --reference: the boards' SoCs: %w", err)
	}
	socs := map[string]string{}
	for _, b := range inv.Boards() {
		if b.SoC != "" {
			socs[b.Name] = b.SoC
		}
	}
	return socs, nil
}
