package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/serve"
	"github.com/fleetlab/fleet/store"
)

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "the lab's dashboard in a browser: runs, run details, compare, history, regress, and a JSON API",
		Description: `Serves the results database read-only over HTTP (SQLite opened read-only: browsing never changes it).
Pages: / (runs), /runs/ID, /compare, /history, /regress, /changes (recent change points and regressions
across the lab, filtered by board, inventory tag and label); the same data as JSON under /api/runs, /api/runs/ID,
/api/results, /api/history, /api/compare and /api/regress. A run in progress refreshes itself until it ends.

Binds to 127.0.0.1:8080 by default. Any other address (another interface, or :PORT for all of them) needs
--password-file (HTTP basic auth; lines user:bcrypt-hash, as htpasswd -nB USER prints) or an explicit --no-auth.
Ctrl-C stops it gracefully.

   fleet serve
   fleet serve --listen 0.0.0.0:8080 --password-file /etc/fleet/htpasswd`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Value: serve.DefaultListen, Usage: "`HOST:PORT` to listen on"},
			&cli.StringFlag{Name: "password-file", Usage: "require HTTP basic auth against the bcrypt hashes in `FILE`"},
			&cli.BoolFlag{Name: "no-auth", Usage: "serve a non-loopback address without authentication"},
		},
		Action: func(c *cli.Context) error {
			opts := serve.Options{Listen: c.String("listen"), PasswordFile: c.String("password-file"), NoAuth: c.Bool("no-auth"),
				Ready: func(addr string) { fmt.Fprintf(c.App.ErrWriter, "fleet serve: http://%s/ (Ctrl-C stops)\n", addr) }}
			if _, err := serve.CheckListen(opts); err != nil {
				return usageErr("%w", err)
			}
			if dbMissing(c) {
				return usageErr("no database at %s: `fleet run` or `fleet import` creates it (or pass --db PATH)", dbShown(c))
			}
			db, err := store.OpenReadOnly(c.Context, globalString(c, "db"))
			if err != nil {
				return usageErr("%w", err)
			}
			defer db.Close()
			inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
			if err != nil {
				return usageErr("serve: the inventory names the boards' tags for /changes: %w", err)
			}
			tags := map[string][]string{}
			for _, b := range inv.Boards() {
				tags[b.Name] = b.Tags
			}
			srv := &serve.Server{DB: db, Tags: tags, Logf: func(f string, a ...any) { fmt.Fprintf(c.App.ErrWriter, f+"\n", a...) }}
			if err := serve.ListenAndServe(c.Context, srv, opts); err != nil {
				return usageErr("%w", err)
			}
			return nil
		},
	}
}
