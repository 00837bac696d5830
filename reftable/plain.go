package reftable

import (
	"regexp"
	"slices"
	"strings"
)

var (
	wideSpaceRE    = regexp.MustCompile(`\s{2,}`)
	simpleBorderRE = regexp.MustCompile(`^=+( +=+)*$`)
)

// plainBlock reads consecutive lines of plain text: a table aligned with two or more spaces (its header starting
// with "Algorithm"), or the space-separated shape of application notes — a header of sizes or of key sizes and
// curves, then rows of a label and one figure per column. Lines that are neither are prose: the title of the
// next table.
func (p *parser) plainBlock(ls []line, title *[]string, add func(rawTable)) error {
	for i := 0; i < len(ls); {
		s := strings.TrimSpace(ls[i].text)
		if cells := wideSpaceRE.Split(s, -1); len(cells) >= 2 && isAlgorithmHeader(cells[0]) {
			t := rawTable{kind: "space-aligned", line: ls[i].n}
			for ; i < len(ls); i++ {
				ls[i].table = true
				if s := strings.TrimSpace(ls[i].text); simpleBorderRE.MatchString(s) {
					continue // a reStructuredText simple table's ===== lines
				}
				t.rows = append(t.rows, rawRow{ls[i].n, wideSpaceRE.Split(strings.TrimSpace(ls[i].text), -1)})
			}
			add(t)
			continue
		}
		h, ok := plainHeader(s, *title)
		if !ok && simpleBorderRE.MatchString(s) {
			i++ // the top border of a reStructuredText simple table
			continue
		}
		if !ok {
			*title = append(*title, s)
			i++
			continue
		}
		t := rawTable{kind: "space-separated", line: ls[i].n, rows: []rawRow{{ls[i].n, h}}}
		ls[i].table = true
		n := len(h) - 1
		for i++; i < len(ls); i++ {
			s := strings.TrimSpace(ls[i].text)
			if _, ok := plainHeader(s, nil); ok {
				break
			}
			f := strings.Fields(s)
			k := trailingFigures(f)
			if k == n && len(f) > n {
				ls[i].table = true
				t.rows = append(t.rows, rawRow{ls[i].n, append([]string{strings.Join(f[:len(f)-n], " ")}, f[len(f)-n:]...)})
				continue
			}
			if k >= 2 || (k >= 1 && len(f) == k) {
				if t.err == nil { // the table is skipped; its rows are still its own, not the next one's title
					t.err = p.errorf(ls[i].n, "row of %d figures under a header of %d columns (ragged row)", k, n)
				}
				ls[i].table = true
				continue
			}
			break
		}
		add(t)
	}
	return nil
}

var (
	intRE    = regexp.MustCompile(`^[0-9]+$`)
	figureRE = regexp.MustCompile(`^(?:[0-9]+(?:[.,][0-9]+)*(?:[eE][+-]?[0-9]+)?%?|-|n/a)$`)
	asymHead = []string{"rsa", "dsa", "ecdsa", "ecdh", "eddsa", "ffdh"}
	asymKey  = []string{"size", "sizes", "bits", "key", "curve", "curves"}
)

// plainHeader recognises the header of a space-separated table: "RSA size 512 1024 …", "ECDSA curve nistp224
// …", or sizes ("16 64 256 …", after a title line naming the size, or "Size (bytes) 16 64 …").
func plainHeader(s string, title []string) ([]string, bool) {
	f := strings.Fields(s)
	if len(f) >= 3 && slices.Contains(asymHead, strings.ToLower(f[0])) && slices.Contains(asymKey, strings.ToLower(f[1])) {
		return append([]string{f[0] + " " + f[1]}, f[2:]...), true
	}
	k := 0
	for k < len(f) && intRE.MatchString(f[len(f)-1-k]) {
		k++
	}
	if k < 2 {
		return nil, false
	}
	label := strings.Join(f[:len(f)-k], " ")
	if label == "" && len(title) > 0 && strings.Contains(strings.ToLower(title[len(title)-1]), "size") {
		label = title[len(title)-1]
	}
	if !strings.Contains(strings.ToLower(label), "size") {
		return nil, false
	}
	return append([]string{label}, f[len(f)-k:]...), true
}

// trailingFigures counts the figures at the end of a row's fields.
func trailingFigures(f []string) int {
	k := 0
	for k < len(f) && figureRE.MatchString(strings.ToLower(f[len(f)-1-k])) {
		k++
	}
	return k
}
