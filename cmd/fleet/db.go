package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/store"
)

func dbCommand() *cli.Command {
	return &cli.Command{
		Name:  "db",
		Usage: "manage results databases: copy runs between them, apply migrations",
		Description: `A results database is a SQLite file (the default, ./fleet.db) or a PostgreSQL database named by a URL,
postgres://USER@HOST:PORT/DBNAME?sslmode=verify-full (postgresql:// too; every libpq parameter pgx knows
applies). --db, or FLEET_DB in the environment, picks the database every command works on; with a URL, a lab's
controllers and desks share one history. Keep the password out of the URL (PGPASSWORD or ~/.pgpass serve);
fleet never prints one, and a run's recorded command line shows *** in its place.

   export FLEET_DB='postgres://fleet@db.lab.example/fleet?sslmode=verify-full'
   fleet db migrate                                     create or upgrade the shared database's schema
   fleet db copy --from fleet.db --to "$FLEET_DB"       copy your local history into it
   fleet db copy --from "$FLEET_DB" --to lab-backup.db --since 30d   the last month of it, in a SQLite file`,
		Subcommands: []*cli.Command{dbMigrateCommand(), dbCopyCommand()},
	}
}

func dbMigrateCommand() *cli.Command {
	return &cli.Command{
		Name:  "migrate",
		Usage: "apply the schema migrations this fleet has to the database (--db), and say which",
		Description: `Every fleet command that opens a database applies the migrations it lacks on the way; this does it on
purpose, and prints what it applied ("applied 0004_run_uuid; schema 4") or "up to date (schema 4)". Run it
once after upgrading fleet on a shared database, before the nightly jobs do it for you. A database that does
not exist yet is created (SQLite) or set up from scratch (an empty PostgreSQL database).

A database migrated by a newer fleet is refused (exit 2): upgrade fleet. Migrations only ever add to the
schema, each in its own transaction; there is no way back.

   fleet db migrate                                     ./fleet.db, or FLEET_DB
   fleet db migrate --db /srv/lab/fleet.db
   fleet db migrate --db 'postgres://fleet@db.lab.example/fleet?sslmode=verify-full'`,
		Action: func(c *cli.Context) error {
			db, err := openDB(c)
			if err != nil {
				return err
			}
			defer db.Close()
			version, err := db.SchemaVersion(c.Context)
			if err != nil {
				return err
			}
			if applied := db.Migrated(); len(applied) > 0 {
				fmt.Fprintf(c.App.Writer, "applied %s; schema %d\n", strings.Join(applied, ", "), version)
			} else {
				fmt.Fprintf(c.App.Writer, "up to date (schema %d)\n", version)
			}
			return nil
		},
	}
}

// refuseDBFlag refuses --db for a command that names its databases otherwise (db copy's --from and --to):
// silently ignoring a database the user typed would copy somewhere they did not mean.
func refuseDBFlag(name, instead string) cli.BeforeFunc {
	return func(c *cli.Context) error {
		for _, cc := range c.Lineage() {
			if slices.Contains(cc.LocalFlagNames(), "db") {
				return usageErr("%s does not use --db: name the databases with %s", name, instead)
			}
		}
		return maxArgs(name, 0)(c)
	}
}

// dbName is how a database is named in messages: the store's own name for it (for a PostgreSQL URL, without
// its password).
func dbName(db *store.DB) string { return db.Path }
