package inventory

import (
	"fmt"
	"maps"
	"strings"
)

// Inventory is a validated boards.toml: its boards (always including the built-in local board) and its sweep
// profiles (always including quick and full). It is immutable: accessors return copies.
type Inventory struct {
	path     string
	boards   map[string]Board   // every board, local included
	listed   []string           // the names the file lists, sorted
	profiles map[string]Profile // built-in profiles, replaced or joined by the file's
	replaced map[string]bool    // built-in profiles the file replaced: a run that uses one says so
}

// Default returns the inventory used when there is no boards.toml: only the local board and the built-in
// profiles.
func Default() *Inventory {
	return &Inventory{
		boards:   map[string]Board{LocalBoard: localBoard()},
		profiles: builtinProfiles(),
	}
}

// ReplacesBuiltin reports whether the file's [profiles.NAME] replaced the built-in profile of that name, so that
// `--profile nightly` never means one thing in a checkout and another elsewhere without a word.
func (inv *Inventory) ReplacesBuiltin(name string) bool { return inv.replaced[name] }

// Path is the file the inventory was read from, or "" for Default.
func (inv *Inventory) Path() string { return inv.path }

// Boards returns every board sorted by name, including the built-in local board.
func (inv *Inventory) Boards() []Board {
	out := make([]Board, 0, len(inv.boards))
	for _, name := range sortedKeys(inv.boards) {
		out = append(out, cloneBoard(inv.boards[name]))
	}
	return out
}

// Profile returns the named sweep profile.
func (inv *Inventory) Profile(name string) (Profile, error) {
	p, ok := inv.profiles[name]
	if !ok {
		known := sortedKeys(inv.profiles)
		return Profile{}, fmt.Errorf("%w %q%s (known profiles: %s)", ErrUnknownProfile, name, didYouMean(name, known), strings.Join(known, ", "))
	}
	return cloneProfile(p), nil
}

// Profiles returns every profile sorted by name.
func (inv *Inventory) Profiles() []Profile {
	out := make([]Profile, 0, len(inv.profiles))
	for _, name := range sortedKeys(inv.profiles) {
		out = append(out, cloneProfile(inv.profiles[name]))
	}
	return out
}

// didYouMean is ": did you mean "x"?" when some known name is close to name, else "".
func didYouMean(name string, known []string) string {
	if s := suggest(name, known); len(s) > 0 {
		return ": did you mean " + quoteOr(s) + "?"
	}
	return ""
}

func cloneBoard(b Board) Board {
	b.Tags = cloneStrings(b.Tags)
	b.Modes = cloneStrings(b.Modes)
	if b.Env != nil {
		b.Env = maps.Clone(b.Env)
	}
	return b
}

func cloneProfile(p Profile) Profile {
	p.Algorithms = cloneStrings(p.Algorithms)
	p.Modes = cloneStrings(p.Modes)
	if p.Sizes != nil {
		p.Sizes = append([]int{}, p.Sizes...)
	}
	return p
}
