package inventory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	toml "github.com/pelletier/go-toml/v2"
)

// DefaultPath is where the command line looks for the inventory when no path is given.
const DefaultPath = "boards.toml"

// maxTypeErrors bounds how many values of the wrong type parse reports before it stops: each costs a decode.
const maxTypeErrors = 20

// maxFileSize bounds what Load reads: an inventory of thousands of boards is well under it.
const maxFileSize = 4 << 20

// Load reads and validates the inventory at path. Validation errors are *Error values joined with errors.Join,
// each naming path:line:column.
func Load(path string) (*Inventory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load inventory: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("load inventory: %w", err)
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("load inventory: %s: larger than %d MiB", path, maxFileSize>>20)
	}
	return Parse(path, data)
}

// LoadOrDefault is Load, except that a missing file is not an error when the path was not given explicitly:
// the inventory then holds only the local board and the built-in profiles, so that `fleet run` works with no
// set-up. A missing file that was asked for by name is an error naming it.
func LoadOrDefault(path string, explicit bool) (*Inventory, error) {
	inv, err := Load(path)
	if err != nil && !explicit && errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	return inv, err
}

// Parse validates an inventory held in memory; name is used in messages (a file name).
func Parse(name string, data []byte) (*Inventory, error) {
	return parse(name, data, os.UserHomeDir)
}

// parse is Parse with the home directory (for "~" in paths) supplied by the caller.
func parse(name string, data []byte, home func() (string, error)) (*Inventory, error) {
	ps := &problems{file: name, pos: indexPositions(data)}
	var doc fileDoc
	for attempt := 0; ; attempt++ {
		doc = fileDoc{}
		dec := toml.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err := dec.Decode(&doc)
		if err == nil {
			break
		}
		off := ps.addDecodeError(err)
		// Unknown keys still leave a fully decoded document: check the rest too, and report all at once.
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			break
		}
		// A value of the wrong type stops the decoder. Blank that key = value out and decode again, so that it
		// does not hide the other mistakes; the positions stay those of the file.
		var de *toml.DecodeError
		var ok bool
		if attempt == maxTypeErrors || !errors.As(err, &de) || !isTypeError(de) && !isRangeError(de) {
			return nil, ps.err()
		}
		if data, ok = ps.pos.blankKeyValue(data, off); !ok {
			return nil, ps.err()
		}
	}
	b := &builder{ps: ps, home: home}
	inv := &Inventory{path: name, boards: map[string]Board{}, profiles: builtinProfiles()}

	var defaults boardDoc
	if d := doc.Defaults; d != nil {
		defaults = boardDoc{User: d.User, Port: d.Port, IdentityFile: d.IdentityFile, KnownHosts: d.KnownHosts,
			ProxyJump: d.ProxyJump, Tags: d.Tags, Modes: d.Modes, Env: d.Env, OpenSSL: d.OpenSSL, Agent: d.Agent}
		b.checkBoardDoc([]string{"defaults"}, "defaults", &defaults)
	}
	for _, name := range sortedKeys(doc.Boards) {
		if bd, ok := b.board(name, doc.Boards[name], &defaults); ok {
			inv.boards[name] = bd
			inv.listed = append(inv.listed, name)
		}
	}
	if _, ok := inv.boards[LocalBoard]; !ok {
		inv.boards[LocalBoard] = localBoard()
	}
	for _, name := range sortedKeys(doc.Profiles) {
		if p, ok := b.profile(name, doc.Profiles[name]); ok {
			if _, builtin := inv.profiles[name]; builtin {
				if inv.replaced == nil {
					inv.replaced = map[string]bool{}
				}
				inv.replaced[name] = true
			}
			inv.profiles[name] = p
		}
	}
	b.checkValidityLayers(doc.Boards, doc.Profiles)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return inv, nil
}
