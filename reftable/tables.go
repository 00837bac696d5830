package reftable

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// interpret turns one laid-out table into entries (and CPU figures waiting for theirs).
func (p *parser) interpret(t *rawTable) error {
	if t.err != nil {
		return t.err
	}
	if len(t.rows) < 2 {
		return p.errorf(t.line, "%s table with a header and no rows", t.kind)
	}
	h := t.rows[0]
	for _, r := range t.rows[1:] {
		if len(r.cells) != len(h.cells) {
			return p.errorf(r.line, "row of %d cells, the header (line %d) has %d (ragged row)", len(r.cells), h.line, len(h.cells))
		}
	}
	if len(h.cells) >= 2 && (asymFamily(h.cells[0]) != "" || allSizes(h.cells[1:])) {
		return p.sizeColumns(t)
	}
	return p.rowTable(t)
}

func allSizes(cells []string) bool {
	for _, c := range cells {
		if _, ok := parseSize(c); !ok {
			return false
		}
	}
	return true
}

// asymFamily is "rsa" for a header "RSA size", "ecdsa" for "ECDSA curve"; "" otherwise.
func asymFamily(h string) string {
	f := strings.Fields(strings.ToLower(h))
	if len(f) == 2 && slices.Contains(asymHead, f[0]) && slices.Contains(asymKey, f[1]) {
		return f[0]
	}
	return ""
}

// rowTable reads a table of one row per algorithm (and size): a column of algorithms, maybe one of sizes, and
// value columns per mode or board.
func (p *parser) rowTable(t *rawTable) error {
	h := t.rows[0]
	algCol, sizeCol := -1, -1
	cols := make([]*column, len(h.cells))
	for i, cell := range h.cells {
		if cell == "" {
			return p.errorf(h.line, "header cell %d is empty: what its column holds is ambiguous", i+1)
		}
		board, name, unitText := splitHeader(cell)
		switch {
		case board == "" && unitText == "" && isAlgorithmHeader(name):
			if algCol >= 0 {
				return p.errorf(h.line, "two algorithm columns, %s and %s", quoteCell(h.cells[algCol]), quoteCell(cell))
			}
			algCol = i
		case board == "" && strings.Contains(name, "size"):
			if !isSizeHeader(name) || unitText != "" {
				return p.errorf(h.line, "size column %s: only sizes in bytes are read (\"Size (bytes)\")", quoteCell(cell))
			}
			if sizeCol >= 0 {
				return p.errorf(h.line, "two size columns, %s and %s", quoteCell(h.cells[sizeCol]), quoteCell(cell))
			}
			sizeCol = i
		default:
			c, err := p.valueColumn(cell, board, name, unitText, t, h.line)
			if err != nil {
				return err
			}
			cols[i] = &c
		}
	}
	if algCol < 0 {
		return p.errorf(h.line, "%s table without an algorithm column (a header such as \"Algorithm\")", t.kind)
	}
	if !slices.ContainsFunc(cols, func(c *column) bool { return c != nil }) {
		return p.errorf(h.line, "%s table without a value column", t.kind)
	}
	for _, r := range t.rows[1:] {
		size := 0
		if sizeCol >= 0 {
			s, ok := parseSize(r.cells[sizeCol])
			if !ok {
				return p.errorf(r.line, "size %s: not a whole number of bytes from 1 to %d", quoteCell(r.cells[sizeCol]), opensslspeed.MaxBlockSize)
			}
			size = s
		}
		for i, c := range cols {
			if c == nil {
				continue
			}
			v, ok, err := parseValue(r.cells[i])
			if err != nil {
				return p.errorf(r.line, "column %s: %v", quoteCell(c.header), err)
			}
			if !ok {
				continue // not published
			}
			board, mode, err := p.boardMode(c, r.line)
			if err != nil {
				return err
			}
			k := key{board: board, mode: mode, size: size}
			switch c.measure {
			case measureCPU:
				alg, err := p.algorithm(r.cells[algCol], r.line)
				if err != nil {
					return err
				}
				if v.mean > 100*opensslspeed.MaxThreads || v.max > 100*opensslspeed.MaxThreads {
					return p.errorf(r.line, "CPU %% %g: more than %d cores' worth", max(v.mean, v.max), opensslspeed.MaxThreads)
				}
				cf := cpuFigure{line: r.line, board: board, mode: mode, algorithm: alg, size: size, pct: v.mean}
				if v.hasRange { // the shape its throughput column beside it has: the mean, and the range kept
					if !(v.min <= v.mean && v.mean <= v.max) {
						return p.errorf(r.line, "column %s: CPU %% %g not within (min %g, max %g)", quoteCell(c.header), v.mean, v.min, v.max)
					}
					cf.min, cf.max = v.min, v.max
				}
				p.cpus = append(p.cpus, cf)
			case measureBytes:
				if sizeCol < 0 {
					return p.errorf(h.line, "column %s is a throughput, but the table has no size column", quoteCell(c.header))
				}
				if v.percent {
					return p.errorf(r.line, "column %s: %s is a percentage in a throughput column", quoteCell(c.header), quoteCell(r.cells[i]))
				}
				if k.alg, err = p.algorithm(r.cells[algCol], r.line); err != nil {
					return err
				}
				if err := p.add(r.line, k, v, c.unit); err != nil {
					return err
				}
			case measureOps:
				if err := p.asymName(&k, r.cells[algCol], r.line); err != nil {
					return err
				}
				if err := p.add(r.line, k, v, c.unit); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// sizeColumns reads a table with one column per size (or key size, or curve) and one row per algorithm (or
// operation).
func (p *parser) sizeColumns(t *rawTable) error {
	h := t.rows[0]
	board, mode, err := p.boardMode(&column{header: h.cells[0], sizes: true}, h.line)
	if err != nil {
		return err
	}
	if fam := asymFamily(h.cells[0]); fam != "" {
		for _, r := range t.rows[1:] {
			u, ok, _ := parseUnit(r.cells[0])
			if !ok || u.measure != measureOps || u.op == "" {
				return p.errorf(r.line, "row %s under %s: want sign/s or verify/s", quoteCell(r.cells[0]), quoteCell(h.cells[0]))
			}
			for i, cell := range r.cells[1:] {
				v, ok, err := parseValue(cell)
				if err != nil {
					return p.errorf(r.line, "%s %s: %v", h.cells[0], h.cells[i+1], err)
				}
				if !ok {
					continue
				}
				k := key{board: board, mode: mode}
				if err := p.asymName(&k, asymKeyName(fam, h.cells[i+1]), r.line); err != nil {
					return err
				}
				if err := p.add(r.line, k, v, u); err != nil {
					return err
				}
			}
		}
		return nil
	}
	_, _, unitText := splitHeader(h.cells[0])
	var u unit
	if unitText != "" {
		var ok, amb bool
		if u, ok, amb = parseUnit(unitText); amb || !ok {
			return p.errorf(h.line, "%s: unit %s could be bits or bytes", quoteCell(h.cells[0]), unitText)
		}
	} else {
		var found bool
		var problem string
		if u, found, problem = titleUnit(t.title); problem != "" {
			return p.errorf(h.line, "table of sizes: %s", problem)
		} else if !found {
			return p.errorf(h.line, "table of sizes without a unit, in its header or its title (%s): which unit its figures are in is ambiguous", quoteCell(t.title))
		}
	}
	if u.measure != measureBytes {
		return p.errorf(h.line, "table of sizes: its unit is no throughput")
	}
	sizes := make([]int, len(h.cells)-1)
	for i, c := range h.cells[1:] {
		sizes[i], _ = parseSize(c)
	}
	for _, r := range t.rows[1:] {
		alg, err := p.algorithm(r.cells[0], r.line)
		if err != nil {
			return err
		}
		for i, cell := range r.cells[1:] {
			v, ok, err := parseValue(cell)
			if err != nil {
				return p.errorf(r.line, "%s at %d B: %v", alg, sizes[i], err)
			}
			if ok {
				if err := p.add(r.line, key{board: board, mode: mode, alg: alg, size: sizes[i]}, v, u); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func asymKeyName(fam, k string) string {
	k = strings.ToLower(k)
	if intRE.MatchString(k) {
		return fam + k
	}
	return fam + strings.TrimPrefix(k, "nist")
}

// boardMode is the board and mode of a column: its own, else the options'.
func (p *parser) boardMode(c *column, line int) (board, mode string, err error) {
	board, mode = c.board, c.mode
	if board == "" {
		board = p.opts.Board
	}
	if mode == "" {
		mode = p.opts.Mode
	}
	switch {
	case board == "":
		return "", "", p.errorf(line, "column %s names no board: pass --board", quoteCell(c.header))
	case mode == "" && c.sizes:
		return "", "", p.errorf(line, "the table of sizes under %s names no mode (which path served its figures is ambiguous): pass --mode", quoteCell(c.header))
	case mode == "":
		return "", "", p.errorf(line, "column %s names no mode (which path served the figures is ambiguous): pass --mode or --column \"%s=MODE\"", quoteCell(c.header), cutCell(c.header))
	}
	return board, mode, nil
}

// key is what an entry is a figure of.
type key struct {
	board, mode, alg, op, curve string
	size, bits                  int
}

// add checks a figure against the bounds and appends it.
func (p *parser) add(line int, k key, v value, u unit) error {
	scale, limit := u.factor, opensslspeed.MaxBytesPerSec
	pt := protocol.Point{Mode: k.mode, Algorithm: k.alg, Op: k.op, BlockSize: k.size, KeyBits: k.bits, Curve: k.curve,
		Threads: p.threads, Line: line}
	if u.measure == measureOps {
		scale, limit = 1, opensslspeed.MaxOpsPerSec
		pt.Op = u.op
	} else {
		pt.Op = opensslspeed.SymOp(k.alg)
	}
	f := round12(v.mean * scale)
	if f > limit || v.max*scale > limit {
		return p.errorf(line, "%s %s: %g is above any machine (%g at most)", k.mode, k.alg, v.mean, limit)
	}
	if u.measure == measureOps {
		pt.OpsPerSec = f
	} else {
		pt.BytesPerSec = f
	}
	if v.hasRange {
		if !(v.min <= v.mean && v.mean <= v.max) {
			return p.errorf(line, "%s %s: mean %g not within (min %g, max %g)", k.mode, k.alg, v.mean, v.min, v.max)
		}
		pt.PublishedMin, pt.PublishedMax = round12(v.min*scale), round12(v.max*scale)
	}
	if f == 0 {
		return p.errorf(line, "%s %s: a published figure of 0", k.mode, k.alg)
	}
	p.entries = append(p.entries, Entry{Board: k.board, Point: pt})
	return nil
}

// algorithm is a symmetric algorithm's canonical name.
func (p *parser) algorithm(cell string, line int) (string, error) {
	a := opensslspeed.CanonicalAlgorithm(cell)
	if len(a) > maxAlgorithmBytes {
		return "", p.errorf(line, "algorithm %s: a name of %d bytes, longer than any algorithm's (%d at most)",
			quoteCell(cell), len(a), maxAlgorithmBytes)
	}
	if !algRE.MatchString(a) {
		return "", p.errorf(line, "algorithm %s: not an algorithm name", quoteCell(cell))
	}
	if _, _, _, asym := opensslspeed.AsymName(a); asym {
		return "", p.errorf(line, "algorithm %s is asymmetric: its figures are sign/s or verify/s", quoteCell(cell))
	}
	if !opensslspeed.KnownAlgorithm(a) && !p.warned[a] {
		if p.warned == nil {
			p.warned = map[string]bool{}
		}
		p.warned[a] = true
		msg := fmt.Sprintf("algorithm %s is not one fleet knows", quoteCell(cell))
		if near := opensslspeed.NearestAlgorithm(a); near != "" {
			msg += "; did you mean " + near + "?"
		}
		p.warnings = append(p.warnings, p.errorf(line, "%s (stored as %s, which no measurement may share)", msg, a))
	}
	return a, nil
}

func (p *parser) asymName(k *key, cell string, line int) error {
	alg, bits, curve, ok := opensslspeed.AsymName(strings.ToLower(cell))
	if !ok || bits == 0 {
		return p.errorf(line, "%s: not an asymmetric algorithm with its key size or curve (rsa2048, ecdsap256)", quoteCell(cell))
	}
	k.alg, k.bits, k.curve = alg, bits, curve
	return nil
}

// round12 drops the binary noise of a decimal figure times its unit (32.02 × 10^6 is 32020000.000000004):
// twelve significant digits are more than any table prints.
func round12(f float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 12, 64), 64)
	if err != nil {
		return f
	}
	return r
}
