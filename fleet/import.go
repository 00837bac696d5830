package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// ImportSink stores what Import reads, run by run, and ends with Commit or Rollback. store.ImportTx implements
// it as one transaction for the whole import, so an import that fails or is interrupted leaves nothing behind;
// DiscardImport stores nothing (a dry run).
type ImportSink interface {
	StartRun(ctx context.Context, board, source string) error
	Raw(ctx context.Context, r protocol.Raw) error
	Skip(ctx context.Context, s protocol.Skip) error
	Point(ctx context.Context, p protocol.Point) error
	EndRun(ctx context.Context, status protocol.Status, cause string) (int64, error)
	Commit() error
	Rollback() error
}

// ImportOptions says what Import reads.
type ImportOptions struct {
	Board string   // the board the captures came from
	Files []string // captures; each becomes one run
	Split bool     // one run per openssl command instead of one per file
	// Algorithm names rows labelled "evp" in captures without an `openssl speed ... -evp ALG` command line
	// (OpenSSL 1.1.1 -multi); see opensslspeed.Hint.
	Algorithm string
	// Sizes are the block sizes of table rows printed without their header (a capture cut by tail).
	Sizes []int
	// Parsed, when set, sees each openssl command of a file as it is read, before it is stored.
	Parsed func(file string, r opensslspeed.Run)
}

// ImportedRun is one run Import stored.
type ImportedRun struct {
	File     string
	RunID    int64
	Points   int
	Commands int // openssl commands found in its text
}

// ErrNoMeasurement means a capture holds no openssl speed measurement at all (only a refused command, say).
var ErrNoMeasurement = errors.New("no openssl speed measurement")

const (
	// importRawChunk is the most of a capture's text kept in one raw output: a large capture is kept whole, in
	// pieces, without ever being held in memory at once.
	importRawChunk = 1 << 20
	// importMaxSeries bounds the distinct series of one file (openssl speed has about 500), and with it the
	// memory that numbers their repeats.
	importMaxSeries = 1 << 16
)

// Import reads captured `openssl speed` output from opts.Files and stores it in sink: each file one run (with
// opts.Split, one run per openssl command in it), with the capture's text kept as the run's raw output, and
// repeats of a series numbered in the order they appear. Files are read as streams, in bounded memory whatever
// their size.
//
// It is all or nothing: a file that cannot be read, holds no measurement (ErrNoMeasurement) or a value the
// parser refuses (opensslspeed.Problem: an absurd number, control characters in a name, an "evp" row nothing
// names), a failed write, or a cancelled ctx make Import roll the sink back and return the error, naming the
// file and line. Otherwise it commits and returns the runs stored.
func Import(ctx context.Context, opts ImportOptions, sink ImportSink) (runs []ImportedRun, err error) {
	defer func() {
		if err != nil {
			sink.Rollback()
			if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
				err = fmt.Errorf("%w: %v", ctxErr, err)
			}
		}
	}()
	if len(opts.Files) == 0 {
		return nil, fmt.Errorf("import: no file")
	}
	if opts.Board == "" {
		return nil, fmt.Errorf("import: no board")
	}
	for _, path := range opts.Files {
		rs, err := importFile(ctx, opts, sink, path)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	if err := sink.Commit(); err != nil {
		return nil, err
	}
	return runs, nil
}

// importSeries identifies a series within a file, to number its repeats.
type importSeries struct {
	mode, alg, op, curve string
	block, bits, threads int
}

// fileImport is one file being imported.
type fileImport struct {
	ctx    context.Context
	opts   ImportOptions
	sink   ImportSink
	path   string
	source string
	chunks []int // first line of each raw output the text was kept in
	seen   map[importSeries]int
	cur    ImportedRun
	done   []ImportedRun
}

func importFile(ctx context.Context, opts ImportOptions, sink ImportSink, path string) ([]ImportedRun, error) {
	// Checked before opening: open(2) of a FIFO blocks until a writer comes, deaf to Ctrl-C.
	if fi, err := os.Stat(path); err != nil {
		return nil, err // "stat PATH: no such file or directory": the caller adds "import: "
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s): import reads captures saved to files", path, fileKind(fi.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() { // replaced between the check and the open
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	fl := &fileImport{ctx: ctx, opts: opts, sink: sink, path: path, source: "imported from " + abs,
		seen: map[importSeries]int{}, cur: ImportedRun{File: path}}
	if err := sink.StartRun(ctx, opts.Board, fl.source); err != nil {
		return nil, err
	}
	if fl.chunks, err = importRaw(ctx, sink, f, abs, fi.Size()); err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	sc := opensslspeed.NewScanner(&ctxReader{ctx, f}, opensslspeed.Hint{Algorithm: opts.Algorithm, Sizes: opts.Sizes})
	points, why := 0, ""
	for first := true; sc.Scan(); first = false {
		r := sc.Run()
		if len(r.Problems) > 0 {
			p := r.Problems[0]
			if p.Err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, p.Line, p.Err)
			}
			return nil, fmt.Errorf("%s:%d: %s", path, p.Line, p.Text)
		}
		if opts.Parsed != nil {
			opts.Parsed(path, r)
		}
		if opts.Split && !first {
			if err := fl.endRun(); err != nil {
				return nil, err
			}
			if err := sink.StartRun(ctx, opts.Board, fl.source); err != nil {
				return nil, err
			}
		}
		n, err := fl.run(r)
		if err != nil {
			return nil, err
		}
		points += n
		if r.Failed != "" && why == "" {
			why = fmt.Sprintf(" (line %d: %s)", r.Line, r.Failed)
		}
	}
	if err := sc.Err(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, fmt.Errorf("import %s: %w", path, err)
	}
	if points == 0 {
		return nil, fmt.Errorf("%w in %s%s", ErrNoMeasurement, path, why)
	}
	if err := fl.endRun(); err != nil {
		return nil, err
	}
	return fl.done, nil
}

// run stores one openssl command's run into the sink's current run and returns its points.
func (fl *fileImport) run(r opensslspeed.Run) (int, error) {
	ctx := fl.ctx
	fl.cur.Commands++
	if r.Failed != "" && len(r.Points) == 0 {
		return 0, fl.sink.Skip(ctx, protocol.Skip{Mode: r.Mode, Reason: fmt.Sprintf("line %d: %s", r.Line, r.Failed)})
	}
	for _, p := range r.Points {
		k := importSeries{p.Mode, p.Algorithm, p.Op, p.Curve, p.BlockSize, p.KeyBits, p.Threads}
		n, ok := fl.seen[k]
		if !ok && len(fl.seen) >= importMaxSeries {
			return 0, fmt.Errorf("%s:%d: more than %d distinct series in one file: not a capture fleet imports",
				fl.path, p.Line, importMaxSeries)
		}
		fl.seen[k] = n + 1
		p.Repeat = n
		p.RawID = rawIDOf(fl.chunks, p.Line)
		if err := fl.sink.Point(ctx, p); err != nil {
			return 0, err
		}
		fl.cur.Points++
	}
	return len(r.Points), nil
}

// endRun ends the sink's current run: ok with points, failed without.
func (fl *fileImport) endRun() error {
	status, cause := protocol.StatusOK, ""
	if fl.cur.Points == 0 {
		status, cause = protocol.StatusFailed, "no openssl speed output found"
	}
	id, err := fl.sink.EndRun(fl.ctx, status, cause)
	if err != nil {
		return err
	}
	fl.cur.RunID = id
	fl.done = append(fl.done, fl.cur)
	fl.cur = ImportedRun{File: fl.path}
	return nil
}

// DiscardImport is an ImportSink that stores nothing: Import then only reads and checks.
type DiscardImport struct{}

var _ ImportSink = DiscardImport{}

func (DiscardImport) StartRun(context.Context, string, string) error { return nil }
func (DiscardImport) Raw(context.Context, protocol.Raw) error        { return nil }
func (DiscardImport) Skip(context.Context, protocol.Skip) error      { return nil }
func (DiscardImport) Point(context.Context, protocol.Point) error    { return nil }
func (DiscardImport) EndRun(context.Context, protocol.Status, string) (int64, error) {
	return 0, nil
}
func (DiscardImport) Commit() error   { return nil }
func (DiscardImport) Rollback() error { return nil }

// fileKind names what a non-regular file is, for the refusal.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
