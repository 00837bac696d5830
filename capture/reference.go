package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/reftable"
)

// ReferenceOptions say which published tables to read and what they do not say themselves.
type ReferenceOptions struct {
	Files   []string
	Source  string            // the provenance of every file; "" : each file's first "# source:" line
	Board   string            // the board of tables that name none
	Mode    string            // the mode of columns that name none
	Threads int               // -multi N; 0: the text's own, else 1
	Columns map[string]string // header → mode
}

// Reference is what the files of a reference hold, ready to be stored as one run.
type Reference struct {
	Source  string // provenance: the one source, or "FILE: source" per file joined by " | "
	Files   []ReferenceFile
	Entries []reftable.Entry
	// Warnings are the tables' warnings, FILE:LINE first (an algorithm fleet does not know): stored all the same;
	// and the tables skipped because they could not be read (a header with no rows, a ragged row), FILE:LINE of
	// each table and why: the rest of their file is stored without them.
	Warnings []string
}

// ReferenceFile is what one file gave.
type ReferenceFile struct {
	Path    string
	Source  string
	Tables  int // tables read
	Skipped int // tables that could not be read, named in Reference.Warnings
	Threads int
	Entries int
}

// ReadReference reads and parses the files. A mode of opts no figure can be stored under (CheckReferenceMode) is
// refused before any file is read. A file without provenance (no "# source:" line and no opts.Source), a file
// none of whose tables can be read unambiguously, and a figure two files both give are refused with the file and
// line, and nothing is stored. A table that cannot be read in a file whose other tables can is skipped, named in
// the warnings: one empty table at the end of a vendor's page must not cost every complete table before it.
func ReadReference(ctx context.Context, opts ReferenceOptions) (Reference, error) {
	if err := checkReferenceModes(opts); err != nil {
		return Reference{}, err
	}
	var ref Reference
	type origin struct {
		file string
		line int
	}
	seen := map[string]origin{}
	var sources []string
	used := map[string]bool{}
	for _, path := range opts.Files {
		if err := ctx.Err(); err != nil {
			return Reference{}, err
		}
		data, err := readBounded(path, reftable.MaxFileBytes)
		if err != nil {
			return Reference{}, err
		}
		res, err := reftable.Parse(data, reftable.Options{File: path, Board: opts.Board, Mode: opts.Mode,
			Threads: opts.Threads, Columns: opts.Columns})
		if err != nil {
			return Reference{}, fmt.Errorf("read reference table: %w", err)
		}
		src := res.Source
		if opts.Source != "" {
			src = opts.Source
		}
		if src == "" {
			return Reference{}, fmt.Errorf("%s:1: no \"# source:\" line says where the figures come from: add one or pass --source TEXT", path)
		}
		for _, e := range res.Entries {
			k := fmt.Sprintf("%s|%s|%s|%s|%d|%d|%s|%d", e.Board, e.Mode, e.Algorithm, e.Op, e.BlockSize, e.KeyBits, e.Curve, e.Threads)
			if o, ok := seen[k]; ok {
				return Reference{}, fmt.Errorf("%s:%d: %s %s %s %s also at %s:%d: which figure is published is ambiguous",
					path, e.Line, e.Board, e.Mode, e.Algorithm, sizeText(e.BlockSize, e.KeyBits, e.Curve), o.file, o.line)
			}
			seen[k] = origin{path, e.Line}
		}
		for _, k := range res.Columns {
			used[k] = true
		}
		for _, w := range res.Warnings {
			ref.Warnings = append(ref.Warnings, w.Error())
		}
		for _, w := range res.Skipped {
			ref.Warnings = append(ref.Warnings, w.Error())
		}
		ref.Entries = append(ref.Entries, res.Entries...)
		ref.Files = append(ref.Files, ReferenceFile{Path: path, Source: src, Tables: res.Tables, Skipped: len(res.Skipped),
			Threads: res.Threads, Entries: len(res.Entries)})
		sources = append(sources, src)
	}
	for k := range opts.Columns {
		if !used[k] {
			return Reference{}, fmt.Errorf("--column %q names no column of %s", k, strings.Join(opts.Files, ", "))
		}
	}
	ref.Source = sources[0]
	if len(ref.Files) > 1 && opts.Source == "" {
		var parts []string
		for _, f := range ref.Files {
			parts = append(parts, filepath.Base(f.Path)+": "+f.Source)
		}
		ref.Source = strings.Join(parts, " | ")
	}
	return ref, nil
}

func sizeText(size, bits int, curve string) string {
	if size > 0 {
		return fmt.Sprintf("%d B", size)
	}
	return strings.TrimSpace(fmt.Sprintf("%d bits %s", bits, curve))
}

// readBounded reads a whole file of at most max bytes (counted as stored), as UTF-8 text: a table saved as UTF-16
// (Notepad, PowerShell) or with lone CR line ends is decoded as an openssl capture is (opensslspeed.DecodeText),
// and UTF-32 is refused naming it.
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read reference table: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > max {
		return nil, fmt.Errorf("%s: more than %d bytes: no published table is that long", path, max)
	}
	data, err := io.ReadAll(opensslspeed.DecodeText(io.LimitReader(f, max+1)))
	if errors.Is(err, opensslspeed.ErrEncoding) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("read reference table %s: %w", path, err)
	}
	return data, nil
}

// Boards and Modes list what a reference's entries name, sorted.
func (r Reference) Boards() []string {
	return r.distinct(func(e reftable.Entry) string { return e.Board })
}

// Modes lists the modes of the entries, sorted.
func (r Reference) Modes() []string {
	return r.distinct(func(e reftable.Entry) string { return e.Mode })
}

func (r Reference) distinct(f func(reftable.Entry) string) []string {
	set := map[string]bool{}
	for _, e := range r.Entries {
		set[f(e)] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
