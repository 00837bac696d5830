package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/fleetlab/fleet/protocol"
)

// BoardValidity stores the controller's verdict on a board's part of the run (ok, suspect, invalid) with its
// reasons. It is called once, just before BoardFinished; the run's points carry their own verdicts.
func (w *RunWriter) BoardValidity(ctx context.Context, board, verdict string, reasons []string) error {
	if board == "" {
		return fmt.Errorf("store validity: empty board name")
	}
	switch verdict {
	case protocol.ValidityOK, protocol.ValiditySuspect, protocol.ValidityInvalid:
	default:
		return fmt.Errorf("store validity of %s: unknown verdict %q", board, verdict)
	}
	return w.commitWith(ctx, "store validity of "+board, func(t *txWriter) error {
		if err := t.ensureBoard(board); err != nil {
			return err
		}
		return t.exec(`UPDATE board_runs SET validity = ?, validity_reasons = ? WHERE run_id = ? AND board = ?`,
			verdict, jsonList(reasons), w.id, board)
	})
}

// evidenceJSON encodes a point's evidence, or NULL when it has none.
func evidenceJSON(ev *protocol.Evidence) any {
	if ev == nil {
		return nil
	}
	b, err := json.Marshal(ev)
	if err != nil { // Point.Validate refused the values that cannot encode
		return nil
	}
	return string(b)
}

// scanValidity decodes a measurement's validity reasons and evidence.
func scanValidity(id int64, p *protocol.Point, reasons, evidence sql.NullString) error {
	if reasons.Valid {
		if err := json.Unmarshal([]byte(reasons.String), &p.ValidityReasons); err != nil {
			return fmt.Errorf("measurement %d validity reasons: %w", id, err)
		}
	}
	if evidence.Valid {
		p.Evidence = new(protocol.Evidence)
		if err := json.Unmarshal([]byte(evidence.String), p.Evidence); err != nil {
			return fmt.Errorf("measurement %d evidence: %w", id, err)
		}
	}
	return nil
}
