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

// commandLine is the command line recorded with a run: every argument that holds a PostgreSQL connection string
// (--db URL, --db=URL, a keyword/value string, a URL inside another argument) in store.Redact's form, so a run
// never stores a secret.
func commandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redactArg(a)
	}
	return strings.Join(out, " ")
}

func redactArg(a string) string {
	if store.IsPostgres(a) {
		return store.Redact(a)
	}
	if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") && store.IsPostgres(value) {
		return name + "=" + store.Redact(value)
	}
	lower := strings.ToLower(a)
	for _, scheme := range []string{"postgresql:", "postgres:"} {
		if j := strings.Index(lower, scheme); j >= 0 {
			return a[:j] + store.Redact(a[j:])
		}
	}
	if strings.Contains(lower, "password=") {
		return "***" // a keyword/value string in some other shape: nothing of it is worth a leaked password
	}
	return a
}
