package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// statements keeps prepared statements of the write path for the life of the DB. modernc has no statement
// cache of its own, and parsing a 50-row INSERT for every batch was a quarter of the ingest time.
type statements struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// stmt returns query prepared for use in tx, preparing it once per DB (and, inside database/sql, once per
// connection).
func (db *DB) stmt(ctx context.Context, tx *sqlTx, query string) (*sql.Stmt, error) {
	db.stmts.mu.Lock()
	st, ok := db.stmts.m[query]
	if !ok {
		var err error
		if st, err = db.db.PrepareContext(ctx, query); err != nil {
			db.stmts.mu.Unlock()
			return nil, fmt.Errorf("prepare: %w", classify(err))
		}
		if db.stmts.m == nil {
			db.stmts.m = map[string]*sql.Stmt{}
		}
		db.stmts.m[query] = st
	}
	db.stmts.mu.Unlock()
	return tx.StmtContext(ctx, st), nil
}

// closeStatements releases the prepared statements.
func (db *DB) closeStatements() {
	db.stmts.mu.Lock()
	defer db.stmts.mu.Unlock()
	for _, st := range db.stmts.m {
		st.Close()
	}
	db.stmts.m = nil
}
