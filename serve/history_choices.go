package serve

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/store"
)

// historyChoices is the history form: for each field the values that have data given the fields before it
// (board, then mode, then algorithm, then size), so the form never offers a series that was not measured,
// and Notes saying which asked-for value had none and what is shown instead.
type historyChoices struct {
	Boards, Modes, Algorithms, Sizes []string
	Notes                            []string
}

// The series a history page opens on when nothing more is asked: the default path and the size the CLI's
// tables end on, when the board has them.
const (
	preferredMode = "cpu"
	preferredSize = 16384
)

// resolveSeries completes q against the stored series keys: each field that was not given, or names a value
// the fields before it have no data for, takes the first value that has data (the preferred mode and size
// when present), and a note says so. Only an unknown board is refused: there is nothing of it to show. With no
// series stored at all, q stays unset.
func resolveSeries(keys []store.SeriesKey, q historyQuery) (historyQuery, historyChoices, error) {
	var ch historyChoices
	if len(keys) == 0 {
		return q, ch, nil
	}
	cands := keys
	pick := func(field string, values []string, given string, asked bool, preferred string) string {
		if asked && slices.Contains(values, given) {
			return given
		}
		chosen := values[0]
		if slices.Contains(values, preferred) {
			chosen = preferred
		}
		if asked {
			ch.Notes = append(ch.Notes, fmt.Sprintf("no %s %s has data for the series chosen before it: showing %s %s",
				field, given, field, chosen))
		}
		return chosen
	}
	ch.Boards = distinct(cands, func(k store.SeriesKey) string { return k.Board })
	if q.given.board && !slices.Contains(ch.Boards, q.Key.Board) {
		return q, ch, notFound("no series of board %q is stored (boards with data: %s)", truncate(q.Key.Board, 40), joinShort(ch.Boards))
	}
	q.Key.Board = pick("board", ch.Boards, q.Key.Board, q.given.board, "")
	cands = filterKeys(cands, func(k store.SeriesKey) bool { return k.Board == q.Key.Board })
	ch.Modes = distinct(cands, func(k store.SeriesKey) string { return k.Mode })
	q.Key.Mode = pick("mode", ch.Modes, q.Key.Mode, q.given.mode, preferredMode)
	cands = filterKeys(cands, func(k store.SeriesKey) bool { return k.Mode == q.Key.Mode })
	ch.Algorithms = distinct(cands, func(k store.SeriesKey) string { return k.Algorithm })
	q.Key.Algorithm = pick("algorithm", ch.Algorithms, q.Key.Algorithm, q.given.algorithm, "")
	cands = filterKeys(cands, func(k store.SeriesKey) bool { return k.Algorithm == q.Key.Algorithm })
	var sizes []int
	for _, k := range cands {
		if !slices.Contains(sizes, k.BlockSize) {
			sizes = append(sizes, k.BlockSize)
		}
	}
	sort.Ints(sizes)
	for _, n := range sizes {
		ch.Sizes = append(ch.Sizes, strconv.Itoa(n))
	}
	size := pick("size", ch.Sizes, strconv.Itoa(q.Key.BlockSize), q.given.size, strconv.Itoa(preferredSize))
	q.Key.BlockSize, _ = strconv.Atoi(size)
	q.Set = true
	return q, ch, nil
}

func distinct(keys []store.SeriesKey, field func(store.SeriesKey) string) []string {
	var out []string
	for _, k := range keys {
		if v := field(k); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

func filterKeys(keys []store.SeriesKey, keep func(store.SeriesKey) bool) []store.SeriesKey {
	var out []store.SeriesKey
	for _, k := range keys {
		if keep(k) {
			out = append(out, k)
		}
	}
	return out
}

// joinShort lists at most ten names, for messages.
func joinShort(names []string) string {
	if len(names) > 10 {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:10], ", "), len(names)-10)
	}
	return strings.Join(names, ", ")
}
