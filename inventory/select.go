package inventory

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Select returns the boards the command line asks for: names (--boards, in the order given, duplicates
// dropped; a comma-separated element is split), then the boards carrying any of tags (--tag), then, with all
// (--all), every board the file lists; the last two sorted by name. The local board is selected by name, by
// tag, or by --all when the file lists it. An unknown name or a tag no board carries is an error with a
// did-you-mean; so is an empty selection.
func (inv *Inventory) Select(names []string, tags []string, all bool) ([]Board, error) {
	var out []Board
	seen := map[string]bool{}
	pick := func(b Board) {
		if !seen[b.Name] {
			seen[b.Name] = true
			out = append(out, cloneBoard(b))
		}
	}
	known := sortedKeys(inv.boards)
	var errs []error
	for _, name := range splitList(names) {
		b, ok := inv.boards[name]
		if !ok {
			errs = append(errs, fmt.Errorf("%w %q%s (known boards: %s)", ErrUnknownBoard, name, didYouMean(name, known), strings.Join(known, ", ")))
			continue
		}
		pick(b)
	}
	tagList := splitList(tags)
	carried := map[string]bool{}
	for _, b := range inv.Boards() {
		for _, tag := range tagList {
			if slices.Contains(b.Tags, tag) {
				carried[tag] = true
				pick(b)
			}
		}
	}
	knownTags := inv.tags()
	for _, tag := range tagList {
		if !carried[tag] {
			errs = append(errs, fmt.Errorf("%w %q: no board carries it%s (tags in use: %s)", ErrUnknownTag, tag, didYouMean(tag, knownTags), listOrNone(knownTags)))
		}
	}
	if all {
		for _, name := range inv.listed {
			pick(inv.boards[name])
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		if all {
			return nil, fmt.Errorf("%w: --all selects the boards %s lists, and it lists none", ErrNoBoards, inv.source())
		}
		return nil, fmt.Errorf("%w: name boards with --boards, a tag with --tag, or use --all (known boards: %s)", ErrNoBoards, strings.Join(known, ", "))
	}
	return out, nil
}

// source names the inventory file in messages.
func (inv *Inventory) source() string {
	if inv.path == "" {
		return "the inventory (no " + DefaultPath + ")"
	}
	return inv.path
}

// tags returns every tag some board carries, sorted.
func (inv *Inventory) tags() []string {
	set := map[string]bool{}
	for _, b := range inv.boards {
		for _, t := range b.Tags {
			set[t] = true
		}
	}
	return sortedKeys(set)
}

// splitList flattens ["a,b", " c ", "a"] to ["a", "b", "c"]: empty elements and repeats dropped, order kept.
func splitList(list []string) []string {
	var out []string
	for _, el := range list {
		for _, s := range strings.Split(el, ",") {
			if s = strings.TrimSpace(s); s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func listOrNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
