// Package store keeps runs, board facts, measurements and raw outputs in SQLite (modernc.org/sqlite, pure Go),
// with embedded numbered migrations, batched writes as results stream, and queries over history.
package store
