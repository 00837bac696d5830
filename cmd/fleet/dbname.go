package main

import (
	"errors"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/store"
)

// dbShown is the --db value as it may be printed: a PostgreSQL URL without its password (store.Redact).
func dbShown(c *cli.Context) string { return store.Redact(globalString(c, "db")) }

// dbMissing reports a --db file that does not exist yet, for the commands that must not create one. A
// PostgreSQL URL is never "missing" here: opening it says whether the server and the database are there.
func dbMissing(c *cli.Context) bool {
	path := globalString(c, "db")
	if store.IsPostgres(path) {
		return false
	}
	_, err := os.Stat(path)
	return errors.Is(err, os.ErrNotExist)
}

// commandLine is the command line recorded with a run: the arguments with any PostgreSQL URL's password
// replaced by *** (--db URL, --db=URL or any other argument that holds one), so a run never stores a secret.
func commandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		for _, scheme := range []string{"postgresql://", "postgres://"} {
			if j := strings.Index(a, scheme); j >= 0 {
				out[i] = a[:j] + store.Redact(a[j:])
				break
			}
		}
	}
	return strings.Join(out, " ")
}
