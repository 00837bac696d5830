package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fleetlab/fleet/protocol"
)

// HistoryFilter selects the series histories SeriesHistories reads. Empty lists match everything.
type HistoryFilter struct {
	Boards     []string
	Modes      []string
	Algorithms []string
	Sizes      []int // block sizes in bytes; 0 is the asymmetric operations
	Label      string
	// MaxRuns bounds the memory of a long history: only the newest MaxRuns runs of each board are read
	// (0: all). HistoryBoard.TotalRuns says how many there were.
	MaxRuns int
	// Energy reads each point's µJ per byte above idle in the place of its throughput (fleet changes --metric
	// energy): points without a figure, and asymmetric operations (no bytes), are left out.
	Energy bool
}

// Histories is every selected series over time, with what the runs knew about their boards.
type Histories struct {
	Series []SeriesHistory
	Runs   map[int64]HistoryRun // every run a night of Series comes from
	Boards map[string]HistoryBoard

	mu        sync.Mutex
	factsJSON map[BoardRunKey]string // probed facts of the board runs that have them, parsed by FactsOf
	facts     map[BoardRunKey]*protocol.Facts
}

// FactsOf returns the facts probed on board in run, nil when there are none (a run outside the window, an
// import, a probe that did not answer) or they do not parse. Safe for concurrent use.
func (h *Histories) FactsOf(run int64, board string) *protocol.Facts {
	k := BoardRunKey{run, board}
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := h.facts[k]; ok {
		return f
	}
	var f *protocol.Facts
	if js, ok := h.factsJSON[k]; ok {
		f = new(protocol.Facts)
		if json.Unmarshal([]byte(js), f) != nil {
			f = nil // stored by this program, so never expected; a change then simply lists no facts
		}
	}
	if h.facts == nil {
		h.facts = map[BoardRunKey]*protocol.Facts{}
	}
	h.facts[k] = f
	return f
}

// SetFacts records the facts of a board run, for callers that build Histories themselves (tests, benchmarks).
func (h *Histories) SetFacts(run int64, board string, f *protocol.Facts) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.facts == nil {
		h.facts = map[BoardRunKey]*protocol.Facts{}
	}
	h.facts[BoardRunKey{run, board}] = f
}

// SeriesHistory is one series (exact key: zero threads, op, key bits and curve are values, not wildcards) and its
// nights, oldest run first.
type SeriesHistory struct {
	Key    SeriesKey
	Nights []Night
}

// Night is one run's points of one series: the repeats of a run, never pooled with other runs.
type Night struct {
	RunID   int64
	Values  []float64 // bytes/s, or ops/s for asymmetric series (block size 0), of the points not failed
	Failed  int       // failed points, left out of Values
	Drivers []string  // distinct kernel drivers the points name
	Invalid int       // points judged invalid (busy, throttled board), left out of Values
	// InvalidValues are the throughputs of the invalid points, never a sample to judge: a chart may show the
	// level they were measured at, marked as not judged, so that a step among them is seen and not believed.
	InvalidValues []float64
	// InvalidReasons are the distinct validity reasons of the invalid points ("background CPU 72 % (limit 8 %)"),
	// in the order they first appear: what a reader must fix before the night counts.
	InvalidReasons []string
}

// HistoryRun is what a night needs to know about its run.
type HistoryRun struct {
	Started     time.Time
	Label       string
	ToolVersion string
}

// HistoryBoard says how much of a board's history was read.
type HistoryBoard struct {
	TotalRuns int // board runs stored for the board (with the label, when the filter has one)
	ReadRuns  int // of them, read (at most MaxRuns)
}

// BoardRunKey names one board's part of one run.
type BoardRunKey struct {
	RunID int64
	Board string
}

// SeriesHistories reads every selected series over its runs in two queries — the board runs with their facts,
// then their points — whatever the number of series. Failed points are counted, not used.
//
// Points judged invalid are left out of Values here too, in one place (usablePoint), for every reader; their
// values and reasons are kept apart (Night.InvalidValues, Night.InvalidReasons) so that what was left out can
// be said and shown.
func (db *DB) SeriesHistories(ctx context.Context, f HistoryFilter) (*Histories, error) {
	h := &Histories{Runs: map[int64]HistoryRun{}, Boards: map[string]HistoryBoard{}, factsJSON: map[BoardRunKey]string{}}
	cte, args := boardRunWindow(f)
	if err := db.readHistoryBoardRuns(ctx, h, cte, args, f); err != nil {
		return nil, fmt.Errorf("read series histories in %s: %w", db.Path, err)
	}
	if err := db.readHistoryPoints(ctx, h, cte, args, f); err != nil {
		return nil, fmt.Errorf("read series histories in %s: %w", db.Path, err)
	}
	return h, nil
}

// boardRunWindow is a CTE "w" of the selected board runs numbered newest first per board (k) with the count per
// board (total): the window that bounds a long history.
func boardRunWindow(f HistoryFilter) (string, []any) {
	var w where
	if len(f.Boards) > 0 {
		w.in("b.board", strs(f.Boards))
	}
	if f.Label != "" {
		w.add("r.label = ?", f.Label)
	}
	w.add("r.status <> ?", string(protocol.StatusReference)) // published figures are never a measurement
	return `WITH w AS (SELECT b.run_id, b.board, b.facts, r.started, r.label, r.tool_version,
			ROW_NUMBER() OVER (PARTITION BY b.board ORDER BY r.started DESC, r.id DESC) AS k,
			COUNT(*) OVER (PARTITION BY b.board) AS total
		FROM board_runs b JOIN runs r ON r.id = b.run_id` + w.sql() + `)`, w.args
}

// maxRunsArg is MaxRuns as the bound of w.k.
func maxRunsArg(f HistoryFilter) int64 {
	if f.MaxRuns <= 0 {
		return 1<<62 - 1
	}
	return int64(f.MaxRuns)
}

// readHistoryBoardRuns reads the runs inside the window and keeps their facts as JSON: they are parsed when
// asked for (Histories.FactsOf), because a change needs two board runs' facts out of hundreds.
func (db *DB) readHistoryBoardRuns(ctx context.Context, h *Histories, cte string, args []any, f HistoryFilter) error {
	rows, err := db.db.QueryContext(ctx, cte+` SELECT run_id, board, facts, started, label, tool_version, total
		FROM w WHERE k <= ?`, append(append([]any{}, args...), maxRunsArg(f))...)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k BoardRunKey
		var facts, started sql.NullString
		var r HistoryRun
		var total int
		if err := rows.Scan(&k.RunID, &k.Board, &facts, &started, &r.Label, &r.ToolVersion, &total); err != nil {
			return err
		}
		if r.Started, err = parseTime(started); err != nil {
			return fmt.Errorf("run %d: %w", k.RunID, err)
		}
		h.Runs[k.RunID] = r
		b := h.Boards[k.Board]
		b.TotalRuns, b.ReadRuns = total, b.ReadRuns+1
		h.Boards[k.Board] = b
		if facts.Valid {
			h.factsJSON[k] = facts.String
		}
	}
	return classify(rows.Err())
}

// readHistoryPoints reads the points of the board runs inside the window (a seek per board run in
// measurements_run_series) and groups them by series and run.
func (db *DB) readHistoryPoints(ctx context.Context, h *Histories, cte string, args []any, f HistoryFilter) error {
	w := historyPointsWhere(f)
	rows, err := db.db.QueryContext(ctx, cte+` SELECT m.run_id, m.board, m.mode, m.algorithm, m.op, m.block_size,
			m.key_bits, m.curve, m.threads, m.bytes_per_sec, m.ops_per_sec, m.driver, m.failed, m.validity,
			CASE WHEN m.validity = ? THEN m.validity_reasons END, m.energy_uj_per_byte
		FROM w CROSS JOIN measurements m ON m.run_id = w.run_id AND m.board = w.board`+w.sql()+db.insertionOrder("m"),
		append(append(append([]any{}, args...), protocol.ValidityInvalid), w.args...)...)
	if err != nil {
		return classify(err)
	}
	defer rows.Close()
	index := map[SeriesKey]int{}
	intern := map[string]string{} // a few distinct names, repeated on every row
	in := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	for rows.Next() {
		var k SeriesKey
		var run int64
		var bps, ops float64
		var driver string
		var failed bool
		var validity string
		var reasons sql.NullString
		var ujPerByte sql.NullFloat64
		if err := rows.Scan(&run, &k.Board, &k.Mode, &k.Algorithm, &k.Op, &k.BlockSize, &k.KeyBits, &k.Curve,
			&k.Threads, &bps, &ops, &driver, &failed, &validity, &reasons, &ujPerByte); err != nil {
			return err
		}
		if f.Energy && (k.BlockSize == 0 || !failed && !ujPerByte.Valid) {
			continue
		}
		k.Board, k.Mode, k.Algorithm, k.Op, k.Curve = in(k.Board), in(k.Mode), in(k.Algorithm), in(k.Op), in(k.Curve)
		i, ok := index[k]
		if !ok {
			i = len(h.Series)
			index[k] = i
			h.Series = append(h.Series, SeriesHistory{Key: k})
		}
		s := &h.Series[i]
		// the rows of one board run arrive together (the join walks w and seeks its points), so a row's night
		// is nearly always the series' last; the search back only guards against another plan
		n := len(s.Nights) - 1
		for n >= 0 && s.Nights[n].RunID != run {
			n--
		}
		if n < 0 {
			n = len(s.Nights)
			s.Nights = append(s.Nights, Night{RunID: run})
		}
		v := bps
		switch {
		case f.Energy:
			v = ujPerByte.Float64
		case k.BlockSize == 0:
			v = ops
		}
		if err := s.Nights[n].add(v, failed, validity, reasons, driver, in); err != nil {
			return fmt.Errorf("run %d: %w", run, err)
		}
	}
	if err := rows.Err(); err != nil {
		return classify(err)
	}
	h.sortSeries()
	return nil
}

// historyPointsWhere selects, of the window's board runs, the points f asks for.
func historyPointsWhere(f HistoryFilter) where {
	var w where
	w.add("w.k <= ?", maxRunsArg(f))
	if len(f.Modes) > 0 {
		w.in("m.mode", strs(f.Modes))
	}
	if len(f.Algorithms) > 0 {
		w.in("m.algorithm", strs(f.Algorithms))
	}
	if len(f.Sizes) > 0 {
		var sizes []any
		for _, s := range f.Sizes {
			sizes = append(sizes, s)
		}
		w.in("m.block_size", sizes)
	}
	return w
}

// sortSeries orders the series by key and each one's nights oldest run first.
func (h *Histories) sortSeries() {
	for i := range h.Series {
		ns := h.Series[i].Nights
		sort.Slice(ns, func(a, b int) bool {
			ra, rb := h.Runs[ns[a].RunID], h.Runs[ns[b].RunID]
			if !ra.Started.Equal(rb.Started) {
				return ra.Started.Before(rb.Started)
			}
			return ns[a].RunID < ns[b].RunID
		})
	}
	sort.Slice(h.Series, func(a, b int) bool { return seriesKeyLess(h.Series[a].Key, h.Series[b].Key) })
}

// usablePoint says whether a point enters a night's sample. Failed points never do, nor points judged invalid
// (they are counted); suspect points do.
func usablePoint(failed bool, validity string) bool {
	return !failed && validity != protocol.ValidityInvalid
}

// add counts one point of the night: failed, invalid (with its value and reasons kept apart) or a sample value.
func (n *Night) add(v float64, failed bool, validity string, reasons sql.NullString, driver string, in func(string) string) error {
	switch {
	case failed:
		n.Failed++
	case !usablePoint(failed, validity):
		n.Invalid++
		n.InvalidValues = append(n.InvalidValues, v)
		if err := n.addReasons(reasons, in); err != nil {
			return err
		}
	default:
		n.Values = append(n.Values, v)
	}
	if driver != "" && !contains(n.Drivers, driver) {
		n.Drivers = append(n.Drivers, in(driver))
	}
	return nil
}

// addReasons adds the JSON list of an invalid point's validity reasons to the night's distinct reasons.
func (n *Night) addReasons(reasons sql.NullString, in func(string) string) error {
	if !reasons.Valid || reasons.String == "" {
		return nil
	}
	var rs []string
	if err := json.Unmarshal([]byte(reasons.String), &rs); err != nil {
		return fmt.Errorf("validity reasons: %w", err)
	}
	for _, r := range rs {
		if !contains(n.InvalidReasons, r) {
			n.InvalidReasons = append(n.InvalidReasons, in(r))
		}
	}
	return nil
}

// in adds "col IN (?, ?, …)".
func (w *where) in(col string, vals []any) {
	w.conds = append(w.conds, col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(vals)), ", ")+")")
	w.args = append(w.args, vals...)
}

func strs(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, v := range ss {
		if v == s {
			return true
		}
	}
	return false
}

// seriesKeyLess orders series by board, mode, algorithm, op, threads, key bits, curve, then block size.
func seriesKeyLess(a, b SeriesKey) bool {
	switch {
	case a.Board != b.Board:
		return a.Board < b.Board
	case a.Mode != b.Mode:
		return a.Mode < b.Mode
	case a.Algorithm != b.Algorithm:
		return a.Algorithm < b.Algorithm
	case a.Op != b.Op:
		return a.Op < b.Op
	case a.Threads != b.Threads:
		return a.Threads < b.Threads
	case a.KeyBits != b.KeyBits:
		return a.KeyBits < b.KeyBits
	case a.Curve != b.Curve:
		return a.Curve < b.Curve
	}
	return a.BlockSize < b.BlockSize
}
