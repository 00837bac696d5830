package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/fleetlab/fleet/fleet"
	"github.com/fleetlab/fleet/inventory"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/report"
	"github.com/fleetlab/fleet/store"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

func selectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "boards", Aliases: []string{"b"}, Usage: "boards by `NAME`, comma-separated (local is the host itself)"},
		&cli.StringSliceFlag{Name: "tag", Aliases: []string{"t"}, Usage: "boards carrying `TAG`"},
		&cli.BoolFlag{Name: "all", Usage: "every board of the inventory"},
	}
}

func sshFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "accept-new", Usage: "trust a board's host key on first use and add it to known_hosts (a changed key is always refused)"},
		&cli.StringFlag{Name: "agent", Usage: "use this prebuilt fleet-agent `PATH` instead of building one with the Go toolchain",
			Action: func(c *cli.Context, path string) error {
				if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
					return usageErr("--agent %q: want a fleet-agent binary (a regular file): %v", path, statErr(fi, err))
				}
				return nil
			}},
		&cli.IntFlag{Name: "concurrency", Aliases: []string{"j"}, Value: 8, Usage: "`N` boards at once", Action: func(c *cli.Context, n int) error {
			if n < 1 {
				return usageErr("--concurrency %d: want at least 1 board at once", n)
			}
			return nil
		}},
	}
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "sweep boards: connect, deploy the agent, probe, measure every mode, store the points",
		ArgsUsage: " ",
		Description: `Measures each selected board with the profile's algorithms, modes and block sizes, timed on the wall
clock, and stores every point as it arrives. Modes a board cannot run are stored as skips with the reason.
Boards run in parallel; one failing board never stops the others (exit 3 at the end).

   fleet run --boards local                       the host itself, quick profile (about a minute)
   fleet run --boards am335x,am64x --profile full --label nightly
   fleet run --tag ti --modes soft,cpu,devcrypto --algorithms aes-128-cbc --sizes 16,1024,16384 --repeat 5
   fleet run --tag nightly --profile nightly --label nightly   each point to ±2 % (at most 20 repeats, 1 h a board)
   fleet run --boards local --precision 1 --max-repeat 30 --budget 10m
   fleet run --boards am64x --modes ssh           SSH upload/download MB/s per cipher, 64 MiB each way

Mode ssh is measured only when named (--modes, a profile or the board): for each SSH cipher (--algorithms, default
every one below) it opens a fresh connection to the board offering that cipher alone, with the same host key
checks, identities and ProxyJump chain as the run's own connection (through jump hosts the whole chain is
measured), and times an upload and a download of --sizes bytes (with --modes ssh alone; default 64 MiB) into and
out of the agent on the board, which reads the board's CPU from /proc/stat. A cipher the server does not offer is
a skip with the reason. Points are flagged host-bound when the controller itself used 90 % of a core; the ssh
points of one board are measured at a time. fleet compare --modes ssh prints the table.`,
		Flags: append(append(append(selectionFlags(), sshFlags()...),
			&cli.StringFlag{Name: "profile", Aliases: []string{"p"}, Value: "quick", Usage: "sweep `PROFILE` (quick, full, nightly, or one from boards.toml)"},
			labelFlag("`LABEL` the run (e.g. nightly) for regress --baseline and --run"),
			// 0 is refused: the default comes from the profile, and --help says so instead of "(default: 0)".
			&cli.IntFlag{Name: "repeat", Usage: "repeat every point `N` times (interleaved across modes)", DefaultText: fromProfile},
			&cli.Float64Flag{Name: "seconds", Usage: "`S` seconds per point", DefaultText: fromProfile},
			modesFlag("`MODES` to measure: "+measurableModes()),
			algorithmsFlag("algorithms", []string{"a"}, "`ALGS` e.g. aes-128-cbc,sha256,rsa2048; for mode ssh, SSH ciphers such as aes128-ctr,chacha20-poly1305@openssh.com (default: "+strings.Join(protocol.DefaultSSHCiphers, ", ")+")"),
			&cli.StringSliceFlag{Name: "sizes", Usage: "block `SIZES` in bytes, e.g. 16,1024,16384; with --modes ssh alone, bytes per transfer",
				DefaultText: fromProfile + "; with --modes ssh alone 67108864, 64 MiB"},
			&cli.IntFlag{Name: "threads", Usage: "run `N` openssl processes in parallel (-multi)", DefaultText: fromProfile},
			formatFlag(report.ViewRun),
			&cli.IntFlag{Name: "verify-threads", DefaultText: "the board's cores",
				Usage: "verify each accelerated mode also with `N` parallel workers for a few seconds (0: no concurrency check; every path is verified before it is measured)",
				Action: func(c *cli.Context, n int) error {
					if n < 0 || n > 1024 {
						return usageErr("--verify-threads %d: want 0 (no concurrency check) to 1024 workers", n)
					}
					return nil
				}},
			&cli.BoolFlag{Name: "trace", EnvVars: []string{"FLEET_TRACE"},
				Usage: "print on stderr how long each phase of each board took (connect, deploy, probe, sweep), each SSH session in it, and in the sweep each path's verification and each point (its openssl child's wall time, openssl's own seconds, the time since the previous point)"},
		), append(append(append(append(layoutFlags("at-size"), prepareFlags()...), leaseFlags()...), precisionFlags()...), append(reconnectFlags(), cpusFlags()...)...)...),
		Action: runAction,
	}
}

// fromProfile is the default of the sweep flags that override the profile.
const fromProfile = "from the profile"

func runAction(c *cli.Context) error {
	var trace fleet.Tracer
	if c.Bool("trace") {
		trace = fleet.TraceWriter(c.App.ErrWriter, time.Now())
	}
	endPhase := trace.Phase("run", "open the store")
	f, err := runFlagsOf(c)
	if err != nil {
		return err
	}
	db, err := openDB(c)
	if err != nil {
		return err
	}
	defer db.Close()
	progress := newProgress(c.App.ErrWriter)
	progress.perPoint = time.Duration(f.sweep.Seconds * float64(time.Second)) // the time left comes from the plan
	opts, err := recordOptions(c, db, store.RunInfo{Label: c.String("label")}, progress)
	if err != nil {
		return err
	}
	endPhase()
	f.apply(c, &opts)
	opts.Trace = trace
	// The run's end and its tables are read and written after an interrupt too, but each within a grace
	// period from when it starts: a database that stopped answering must not keep an interrupted fleet from
	// exiting, and boards that take a while to stop must not use up the database's grace.
	opts.Final = func() (context.Context, context.CancelFunc) { return store.Outlive(c.Context, store.FinalWriteGrace) }
	run, err := fleet.RunRecorded(c.Context, opts)
	progress.Wait()
	if err != nil {
		return usageErr("%w", err)
	}
	return printRun(c, db, run, f.layout, trace)
}

// runFlags is what fleet run's flags say beyond the record: each is refused before the store is opened.
type runFlags struct {
	layout        report.Layout
	boards        []inventory.Board
	sweep         inventory.Profile
	transferSizes []int // mode ssh's bytes per transfer
	quietWait     *time.Duration
	governor      string
	reconnectWait *time.Duration
}

// runFlagsOf reads fleet run's flags, in the order they are checked: the table layout, the boards, the sweep,
// the layout's size against the sweep's, the board's preparation and the reconnect wait.
func runFlagsOf(c *cli.Context) (f runFlags, err error) {
	if f.layout, err = layoutFromFlags(c, "at-size"); err != nil {
		return f, err
	}
	var inv *inventory.Inventory
	if inv, f.boards, err = loadSelection(c, true); err != nil {
		return f, err
	}
	if f.sweep, f.transferSizes, err = sweepFromFlags(c, inv); err != nil {
		return f, err
	}
	if err := checkAtSize(f.layout, f.sweep.Sizes); err != nil {
		return f, err
	}
	if f.quietWait, f.governor, err = prepareFromFlags(c); err != nil {
		return f, err
	}
	f.reconnectWait, err = reconnectFromFlags(c)
	return f, err
}

// apply gives opts what the flags say to measure and how.
func (f runFlags) apply(c *cli.Context, opts *fleet.RecordOptions) {
	opts.Boards, opts.Sweep, opts.ModesSet = f.boards, f.sweep, c.IsSet("modes")
	opts.CPUsSet = c.IsSet("cpus")
	opts.QuietWait, opts.Governor = f.quietWait, f.governor
	opts.ReconnectWait = f.reconnectWait
	opts.TransferSizes = f.transferSizes
	opts.VerifyThreads = -1 // the board's cores
	if c.IsSet("verify-threads") {
		opts.VerifyThreads = c.Int("verify-threads")
	}
}

// printRun ends fleet run once every board has stopped: the boards refused for an unknown algorithm dropped
// (RecordedRun.DropRefused), the summary on stderr and the run's tables on stdout. Its error is the run's
// (ErrBoardsFailed, an interrupt), or the usage error of the refused boards, which decides the exit code while
// the other boards' results are kept and printed.
func printRun(c *cli.Context, db *store.DB, run fleet.RecordedRun, layout report.Layout, trace fleet.Tracer) error {
	final, endFinal := store.Outlive(c.Context, store.FinalWriteGrace)
	defer endFinal()
	defer trace.Phase("run", "print the run's tables")()
	runErr := run.Err
	outcomes, gone, refused := run.DropRefused(final)
	if refused != nil {
		refused = usageErr("%w", refused)
	}
	if gone || refused != nil && len(outcomes) == 0 {
		return refused
	}
	if refused != nil {
		runErr = refused
	}
	printRunSummary(final, c.App.ErrWriter, db, run.ID, outcomes)
	ms, err := db.Measurements(final, store.Filter{RunID: run.ID})
	if err != nil {
		return usageErr("%w", err)
	}
	if err := writeRunTables(c, db, ms, layout); err != nil {
		return err
	}
	return runErr
}

// sweepFromFlags is the profile with the command line's overrides.
// Mode ssh's transfer sizes come back on their own (sshSweepFromFlags).
func sweepFromFlags(c *cli.Context, inv *inventory.Inventory) (inventory.Profile, []int, error) {
	p, err := inv.Profile(c.String("profile"))
	if err != nil {
		return p, nil, usageErr("%w", err)
	}
	if inv.ReplacesBuiltin(p.Name) {
		fmt.Fprintf(c.App.ErrWriter, "profile %s: %s's [profiles.%s], which replaces the built-in one\n",
			p.Name, inv.Path(), p.Name)
	}
	if v := splitList(c.StringSlice("algorithms")); len(v) > 0 {
		p.Algorithms = v
	}
	if v := splitList(c.StringSlice("modes")); len(v) > 0 {
		p.Modes = v
	}
	transfer, sizesUsed, err := sshSweepFromFlags(c, &p)
	if err != nil {
		return p, nil, err
	}
	if v := splitList(c.StringSlice("sizes")); len(v) > 0 && !sizesUsed {
		p.Sizes = nil
		for _, s := range v {
			n, err := strconv.Atoi(s)
			if err != nil {
				return p, nil, usageErr("--sizes: %q is not a block size in bytes", s)
			}
			p.Sizes = append(p.Sizes, n)
		}
	}
	if c.IsSet("seconds") {
		p.Seconds = c.Float64("seconds")
		if msg := inventory.CheckSeconds(p.Seconds); msg != "" {
			return p, nil, usageErr("--seconds: %s", msg)
		}
	}
	if c.IsSet("repeat") {
		p.Repeats = c.Int("repeat")
	}
	if c.IsSet("threads") {
		p.Threads = c.Int("threads")
	}
	if err := applyCPUsFlags(c, &p); err != nil {
		return p, nil, err
	}
	if err := applyPrecisionFlags(c, &p); err != nil {
		return p, nil, err
	}
	if err := inventory.ValidateProfile(p); err != nil {
		return p, nil, usageErr("profile %s with the command line's overrides: %w", p.Name, err)
	}
	return p, transfer, nil
}

// splitList accepts both --x a,b and --x a --x b.
func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

func loadSelection(c *cli.Context, defaultLocal bool) (*inventory.Inventory, []inventory.Board, error) {
	inv, err := inventory.LoadOrDefault(globalString(c, "inventory"), inventoryExplicit(c))
	if err != nil {
		return nil, nil, usageErr("%w", err)
	}
	names, tags := splitList(c.StringSlice("boards")), splitList(c.StringSlice("tag"))
	if len(names) == 0 && len(tags) == 0 && !c.Bool("all") {
		if !defaultLocal {
			return nil, nil, usageErr("name the boards: --boards a,b, --tag T or --all")
		}
		return nil, nil, usageErr("name the boards to measure: --boards local (this machine), --boards a,b, --tag T or --all")
	}
	boards, err := inv.Select(names, tags, c.Bool("all"))
	if err != nil {
		return nil, nil, usageErr("%w", err)
	}
	return inv, boards, nil
}

// openExistingDB opens the database for a command that only reads: a missing file is a mistyped path, not
// a new database.
func openExistingDB(c *cli.Context) (*store.DB, error) {
	if dbMissing(c) {
		return nil, usageErr("no database at %s: `fleet run` or `fleet import` creates it (or pass --db PATH)", dbShown(c))
	}
	return openDB(c)
}

// withDB is the action of a command that reads the database: it opens it (it must exist) and closes it after.
func withDB(action func(c *cli.Context, db *store.DB) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		db, err := openExistingDB(c)
		if err != nil {
			return err
		}
		defer db.Close()
		return action(c, db)
	}
}

// openDB opens the database, creating it if needed.
func openDB(c *cli.Context) (*store.DB, error) {
	db, err := store.Open(c.Context, globalString(c, "db"))
	if err != nil {
		return nil, usageErr("%w", err)
	}
	return db, nil
}

func dialer(c *cli.Context, logf func(string, ...any)) func(ctx context.Context, b inventory.Board) (fleet.Transport, error) {
	opts := sshtransport.Options{AcceptNew: c.Bool("accept-new"), Logf: logf, ConnectTimeout: 10 * time.Second}
	return func(ctx context.Context, b inventory.Board) (fleet.Transport, error) {
		return sshtransport.Dial(ctx, b, opts)
	}
}
