// Package serve is `fleet serve`: the lab's dashboard over a results database, server-rendered with html/template.
//
// Pages: / (runs, newest first, filtered and paged), /runs/{id} (one run: facts, sweep tables and charts, raw
// output; a run in progress refreshes itself), /compare, /history and /regress (the views of fleet compare,
// history and regress, each a shareable URL), /changes (recent change points and regressions across the lab,
// newest first, by board, inventory tag and label), and /api/... with the same data as JSON, under the field
// names of the CLI's --format json. Every view is built by the same report function as its CLI command
// (report.NewCompareView, report.RegressInput, report.Changes), so the two front ends cannot drift apart.
//
// The history form offers only values with data (history_choices.go): no script may run (see Safety), so the
// lists follow the fields before them on the next request, and a value without data is replaced, with a note. The tables and SVG charts come from package report, the data from package store
// through the Store interface, which has no method that writes: the server opens the database read-only and
// could not write it if it tried.
//
// Safety: every stored string is untrusted (captures are pasted from anywhere) and is escaped; responses carry a
// Content-Security-Policy without inline script, and nosniff; only GET and HEAD are answered (405 otherwise);
// query sizes are bounded and long lists are paged; slow clients time out. ListenAndServe binds to loopback by
// default and refuses any other address without a password file (HTTP basic auth, bcrypt) or an explicit
// NoAuth. It shuts down gracefully when its context ends.
package serve
