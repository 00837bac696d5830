package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// On PostgreSQL a write transaction runs on a connection of its own (sql.Conn), so that the pgx connection
// beneath database/sql can be reached inside it: points go in with COPY (binary, one round trip for a whole
// batch), which costs the server and the client a fraction of a multi-row INSERT's parameters. The COPY is a
// statement of the transaction like any other: it commits with the batch, a failure anywhere in it rolls the
// whole batch back, and a serialization failure or deadlock is retried with the transaction (retry).

// beginPostgres starts a transaction on a connection taken from the pool for it; Commit and Rollback give the
// connection back.
func (c *conn) beginPostgres(ctx context.Context, opts *sql.TxOptions) (*sqlTx, error) {
	sc, err := c.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	t, err := sc.BeginTx(ctx, opts)
	if err != nil {
		sc.Close()
		return nil, err
	}
	return &sqlTx{Tx: t, c: c, sc: sc}, nil
}

// Commit commits the transaction and releases its connection.
func (t *sqlTx) Commit() error {
	err := t.Tx.Commit()
	t.release()
	return err
}

// Rollback rolls the transaction back and releases its connection; after Commit it does nothing.
func (t *sqlTx) Rollback() error {
	err := t.Tx.Rollback()
	t.release()
	return err
}

func (t *sqlTx) release() {
	if t.sc != nil {
		t.sc.Close()
		t.sc = nil
	}
}

// copies reports whether points are stored with COPY in this transaction (PostgreSQL, unless the DB was told
// to use INSERT, as the test comparing the two paths does).
func (t *sqlTx) copies() bool { return t.sc != nil && !t.c.noCopy }

// copyPoints stores points with one COPY into measurements, the columns and values those of the INSERT
// (measurementColumns), converted as the INSERT's arguments are (conn.args: integer flags, valid UTF-8).
func (t *txWriter) copyPoints(points []boardPoint) error {
	rows := make([][]any, len(points))
	for i := range points {
		rows[i] = t.w.db.db.args(appendMeasurementValues(make([]any, 0, len(measurementColumns)), t.w, &points[i]))
	}
	err := t.tx.sc.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("copy points: driver connection is a %T, not pgx's", dc)
		}
		n, err := sc.Conn().CopyFrom(t.ctx, pgx.Identifier{"measurements"}, measurementColumnNames,
			pgx.CopyFromRows(rows))
		if err == nil && n != int64(len(rows)) {
			err = fmt.Errorf("copy points: the server took %d rows of %d", n, len(rows))
		}
		return err
	})
	if err != nil {
		return classify(err)
	}
	return nil
}
