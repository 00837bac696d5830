package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

// ImportSink stores what Import reads, run by run, and ends with Commit or Rollback. store.ImportTx implements
// it as one transaction for the whole import, so an import that fails or is interrupted leaves nothing behind;
// DiscardImport stores nothing (a dry run).
type ImportSink interface {
	StartRun(ctx context.Context, board, source string) error
	Raw(ctx context.Context, r protocol.Raw) error
	Skip(ctx context.Context, s protocol.Skip) error
	Point(ctx context.Context, p protocol.Point) error
	// Facts stores what the captures say about the board, before EndRun: the OpenSSL environment they show.
	Facts(ctx context.Context, f protocol.Facts) error
	EndRun(ctx context.Context, status protocol.Status, cause string) (int64, error)
	Commit() error
	Rollback() error
}

// ImportOptions says what Import reads.
type ImportOptions struct {
	Board string   // the board the captures came from
	Files []string // captures; together one run (see PerFile, Split)
	// PerFile makes each file a run of its own. Without it the files given together are one run: one
	// session of the board, compared as a whole and never against itself (regress --baseline previous).
	PerFile bool
	Split   bool // one run per openssl command (implies PerFile)
	// Mode is the mode of the openssl commands whose capture does not name one (no -engine, -provider,
	// OPENSSL_armcap=0 or engine line): a capture that names another mode is refused. "" leaves them cpu.
	Mode string
	// Algorithm names rows labelled "evp" in captures without an `openssl speed ... -evp ALG` command line
	// (OpenSSL 1.1.1 -multi); see opensslspeed.Hint.
	Algorithm string
	// Sizes are the block sizes of table rows printed without their header (a capture cut by tail).
	Sizes []int
	// Parsed, when set, sees each openssl command of a file as it is read, before it is stored.
	Parsed func(file string, r opensslspeed.Run)
	// Validity are the limits boards.toml sets for the board (inventory.ValidityFor), which judge the CPU share
	// of its CPU-timed captures as they judge a measured point's background CPU; zero: the defaults.
	Validity validity.Overrides
}

// ImportedRun is one run Import stored.
type ImportedRun struct {
	File     string // its file, or its files joined by ", "
	RunID    int64
	Points   int
	Commands int // openssl commands found in its text
}

// ErrNoMeasurement means a capture holds no openssl speed measurement at all (only a refused command, say).
var ErrNoMeasurement = errors.New("no openssl speed measurement")

// ErrMixedEnvironment means the openssl commands of one run ran with different OpenSSL environments (an
// OPENSSL_armcap mask on one and not the other, say): their points would pool two configurations as repeats.
var ErrMixedEnvironment = errors.New("openssl ran with different environments in one run")

const (
	// importRawChunk is the most of a capture's text kept in one raw output: a large capture is kept whole, in
	// pieces, without ever being held in memory at once.
	importRawChunk = 1 << 20
	// importMaxSeries bounds the distinct series of one file (openssl speed has about 500), and with it the
	// memory that numbers their repeats.
	importMaxSeries = 1 << 16
)

// Import reads captured `openssl speed` output from opts.Files and stores it in sink: the files one run
// (opts.PerFile: a run per file; opts.Split: a run per openssl command), with each capture's text kept as the
// run's raw outputs, and repeats of a series numbered in the order they appear across the run's files. Files
// are read as streams, in bounded memory whatever their size. The OpenSSL environment the captures show (an
// OPENSSL_* prefix on the command line, CPUINFO's env:) is stored as the board's facts, less the mask that made
// a command soft (that is its mode).
//
// An opts.Mode no capture can have (CheckMode) is refused before any file is read. It is all or nothing: a file
// that cannot be read, holds no measurement (ErrNoMeasurement) or a value the parser refuses
// (opensslspeed.Problem: an absurd number, control characters in a name, an "evp" row nothing names), a mode
// other than opts.Mode, two environments in one run (ErrMixedEnvironment), a failed write, or a cancelled ctx
// make Import roll the sink back and return the error, naming the file and line. Otherwise it commits and returns
// the runs stored.
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
	if opts.Mode != "" {
		if err := CheckMode(opts.Mode); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	}
	groups := [][]string{opts.Files}
	if opts.PerFile || opts.Split {
		groups = nil
		for _, f := range opts.Files {
			groups = append(groups, []string{f})
		}
	}
	for _, files := range groups {
		ri := &runImport{ctx: ctx, opts: opts, sink: sink}
		if err := ri.start(files); err != nil {
			return nil, err
		}
		for _, path := range files {
			if err := ri.file(path); err != nil {
				return nil, err
			}
		}
		if err := ri.end(); err != nil {
			return nil, err
		}
		runs = append(runs, ri.done...)
	}
	if err := sink.Commit(); err != nil {
		return nil, err
	}
	return runs, nil
}

// importSeries identifies a series within a run, to number its repeats.
type importSeries struct {
	mode, alg, op, curve string
	block, bits, threads int
}

// runImport is one run being imported, from one file or several (or, with Split, each command of a file in turn).
type runImport struct {
	ctx    context.Context
	opts   ImportOptions
	sink   ImportSink
	source string
	name   string // ImportedRun.File
	raws   int    // raw outputs stored in the run so far: a further file's are numbered after them
	chunks []int  // first line of each raw output of the current file
	base   int    // raw outputs before the current file's
	seen   map[importSeries]int
	points int // of the current file
	cur    ImportedRun
	done   []ImportedRun

	env      map[string]string // the OpenSSL environment the run's commands show, without a soft mode's mask
	envAt    string            // file:line of the first command that showed it
	envKnown bool
}

// start begins a run of files.
func (ri *runImport) start(files []string) error {
	var abs []string
	for _, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("import %s: %w", f, err)
		}
		abs = append(abs, a)
	}
	ri.source, ri.name = "imported from "+strings.Join(abs, ", "), strings.Join(files, ", ")
	return ri.restart()
}

// restart begins a run with the current source: the first, or the next command's with Split.
func (ri *runImport) restart() error {
	ri.seen, ri.env, ri.envAt, ri.envKnown = map[importSeries]int{}, nil, "", false
	ri.cur = ImportedRun{File: ri.name}
	return ri.sink.StartRun(ri.ctx, ri.opts.Board, ri.source)
}

// file reads one capture into the run.
func (ri *runImport) file(path string) error {
	ctx, opts, sink := ri.ctx, ri.opts, ri.sink
	// Checked before opening: open(2) of a FIFO blocks until a writer comes, deaf to Ctrl-C.
	if fi, err := os.Stat(path); err != nil {
		return err // "stat PATH: no such file or directory": the caller adds "import: "
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s): import reads captures saved to files", path, fileKind(fi.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() { // replaced between the check and the open
		return fmt.Errorf("%s: not a regular file", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("import %s: %w", path, err)
	}
	ri.base = ri.raws
	if ri.chunks, err = importRaw(ctx, sink, f, abs, fi.Size(), ri.base); errors.Is(err, opensslspeed.ErrEncoding) {
		return fmt.Errorf("%s: %w", path, err) // the input's fault, as a parse error's FILE:LINE: no "import"
	} else if err != nil {
		return fmt.Errorf("import %s: %w", path, err)
	}
	ri.raws += len(ri.chunks)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("import %s: %w", path, err)
	}
	sc := opensslspeed.NewScanner(&ctxReader{ctx, f}, opensslspeed.Hint{Algorithm: opts.Algorithm, Sizes: opts.Sizes})
	why := ""
	ri.points = 0
	for first := true; sc.Scan(); first = false {
		r := sc.Run()
		if len(r.Problems) > 0 {
			p := r.Problems[0]
			if p.Err != nil {
				return fmt.Errorf("%s:%d: %w", path, p.Line, p.Err)
			}
			return fmt.Errorf("%s:%d: %s", path, p.Line, p.Text)
		}
		if r, err = withMode(path, r, opts.Mode); err != nil {
			return err
		}
		if opts.Parsed != nil {
			opts.Parsed(path, r)
		}
		if opts.Split && !first {
			if err := ri.end(); err != nil {
				return err
			}
			if err := ri.restart(); err != nil {
				return err
			}
		}
		if err := ri.run(path, r); err != nil {
			return err
		}
		if r.Failed != "" && why == "" {
			why = fmt.Sprintf(" (line %d: %s)", r.Line, r.Failed)
		}
	}
	if err := sc.Err(); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		return fmt.Errorf("import %s: %w", path, err)
	}
	if ri.points == 0 {
		return fmt.Errorf("%w in %s%s", ErrNoMeasurement, path, why)
	}
	return nil
}

// run stores one openssl command's run into the sink's current run.
func (ri *runImport) run(path string, r opensslspeed.Run) error {
	ctx := ri.ctx
	ri.cur.Commands++
	if err := ri.environment(path, r); err != nil {
		return err
	}
	if r.Failed != "" && len(r.Points) == 0 {
		return ri.sink.Skip(ctx, protocol.Skip{Mode: r.Mode, Reason: fmt.Sprintf("line %d: %s", r.Line, r.Failed)})
	}
	for _, p := range r.Points {
		k := importSeries{p.Mode, p.Algorithm, p.Op, p.Curve, p.BlockSize, p.KeyBits, p.Threads}
		n, ok := ri.seen[k]
		if !ok && len(ri.seen) >= importMaxSeries {
			return fmt.Errorf("%s:%d: more than %d distinct series in one run: not a capture fleet imports",
				path, p.Line, importMaxSeries)
		}
		ri.seen[k] = n + 1
		p.Repeat = n
		p.RawID = ri.base + rawIDOf(ri.chunks, p.Line)
		judgeImported(&p, ri.opts.Validity)
		if err := ri.sink.Point(ctx, p); err != nil {
			return err
		}
		ri.cur.Points++
		ri.points++
	}
	return nil
}

// end ends the sink's current run, with the environment its captures showed as the board's facts: ok with
// points, failed without.
func (ri *runImport) end() error {
	if ri.envKnown {
		if err := ri.sink.Facts(ri.ctx, protocol.Facts{OpenSSLEnv: ri.env}); err != nil {
			return err
		}
	}
	status, cause := protocol.StatusOK, ""
	if ri.cur.Points == 0 {
		status, cause = protocol.StatusFailed, "no openssl speed output found"
	}
	id, err := ri.sink.EndRun(ri.ctx, status, cause)
	if err != nil {
		return err
	}
	ri.cur.RunID = id
	ri.done = append(ri.done, ri.cur)
	return nil
}

// DiscardImport is an ImportSink that stores nothing: Import then only reads and checks.
type DiscardImport struct{}

var _ ImportSink = DiscardImport{}

func (DiscardImport) StartRun(context.Context, string, string) error { return nil }
func (DiscardImport) Raw(context.Context, protocol.Raw) error        { return nil }
func (DiscardImport) Skip(context.Context, protocol.Skip) error      { return nil }
func (DiscardImport) Point(context.Context, protocol.Point) error    { return nil }
func (DiscardImport) Facts(context.Context, protocol.Facts) error    { return nil }
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
