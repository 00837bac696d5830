package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// A vendor's table is of one board (the TI AM64x EVM): setting every stored board beside it ("local soft
// sha256: 882 % of ti-am64x-sdk-12.00") compares an x86 laptop with an arm64 evaluation board, which no one
// asked. So a measured board is compared only with the reference board it is: the same name, or the same SoC,
// or the one --reference-board names, which is the user saying "compare them anyway".

// socOf is the SoC a board name starts with, as labs name boards ("am64x-evm", "am335x_bbb", "imx6q-sabresd"):
// its first word, lower case, letters and digits only.
func socOf(name string) string {
	first, _, _ := strings.Cut(strings.ToLower(name), "-")
	first, _, _ = strings.Cut(first, "_")
	return normalSoC(first)
}

// normalSoC is a SoC name as it is compared: lower case, letters and digits only ("i.MX6Q" is "imx6q").
func normalSoC(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// referenceFor is the reference board a measured board is compared with, and how it was matched; "" when
// none of the reference's boards is it. soc is the measured board's SoC where the lab says it (boards.toml's
// soc), else "".
func referenceFor(board, soc, pick string, refBoards []string) (ref, how string) {
	if pick != "" {
		return pick, "--reference-board"
	}
	for _, r := range refBoards {
		if strings.EqualFold(r, board) {
			return r, "same board"
		}
	}
	mine := normalSoC(soc)
	if mine == "" {
		mine = socOf(board)
	}
	var same []string
	for _, r := range refBoards {
		if mine != "" && socOf(r) == mine {
			same = append(same, r)
		}
	}
	if len(same) == 1 { // two reference boards of the SoC: which one is a guess
		return same[0], "same SoC " + mine
	}
	return "", ""
}

// notComparedNote says which measured boards were left out and how to compare them anyway.
func notComparedNote(label string, boards, refBoards []string, socs map[string]string) string {
	var socText []string
	for _, r := range refBoards {
		socText = append(socText, fmt.Sprintf("%s (SoC %s)", r, socOf(r)))
	}
	var mine []string
	for _, b := range boards {
		soc := normalSoC(socs[b])
		if soc == "" {
			soc = socOf(b)
		}
		mine = append(mine, fmt.Sprintf("%s (SoC %s)", b, soc))
	}
	return fmt.Sprintf("not compared: %s; %s is of %s, which none of them is by name or SoC (boards.toml's soc, "+
		"else the name's first word); --reference-board %s compares a board with it anyway",
		strings.Join(mine, ", "), label, strings.Join(socText, ", "), refBoards[0])
}

// sortedBoards is the boards of a set, sorted.
func sortedBoards(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for b := range set {
		out = append(out, b)
	}
	sort.Strings(out)
	return slices.Compact(out)
}
