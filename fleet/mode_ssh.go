package fleet

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fleetlab/fleet/precision"
	"github.com/fleetlab/fleet/protocol"
	sshtransport "github.com/fleetlab/fleet/transport/ssh"
)

// Mode ssh: what the board's SSH server does with real traffic, per cipher. For every repeat, cipher and transfer
// size the controller opens a fresh connection to the board the way the run's own connection was made (same ssh
// config, ProxyJump chain, host key checks and identities) offering that one cipher, then times an upload
// (controller → board: the board decrypts) and a download (board → controller: the board encrypts) of the
// transfer size through the agent (agent/ssh_transfer.go), which samples the board's /proc/stat around it.
//
// The controller's CPU is that of its whole process (getrusage): other boards' sweeps running at the same time
// are in it too. To keep that small, and so that two boards never share the controller's cores while one is
// timed, a run measures the ssh points of one board at a time (RunOptions.sshGate); other boards' agent sweeps,
// which cost the controller little, go on meanwhile.

// sshModeUnsupported is the probe's reason for mode ssh on a board reached without SSH.
const sshModeUnsupported = "the board is not reached over SSH (the local board has no SSH server to measure)"

// agentPlan is plan without mode ssh and its ciphers: what the agent's sweep measures.
func agentPlan(plan protocol.Plan) protocol.Plan {
	plan.Modes = slices.DeleteFunc(slices.Clone(plan.Modes), func(m string) bool { return m == protocol.ModeSSH })
	plan.Algorithms = slices.DeleteFunc(slices.Clone(plan.Algorithms), protocol.IsSSHCipher)
	return plan
}

// sshPlan is what mode ssh measures of plan: the SSH ciphers it names (protocol.SSHCiphersOf: all of
// DefaultSSHCiphers when it names none) and the transfer sizes (DefaultSSHTransferBytes when none are given);
// nil when plan lacks mode ssh.
func sshPlan(plan protocol.Plan, transferSizes []int) *protocol.Plan {
	if !slices.Contains(plan.Modes, protocol.ModeSSH) {
		return nil
	}
	repeats := max(plan.Repeats, 1)
	if plan.PrecisionPct > 0 {
		// Mode ssh has no adaptive loop, and with a precision target Repeats is only the cap (20 by default: 20 ×
		// 2 × 64 MiB per cipher). It runs the fewest repeats that have a 95 % interval of the median instead.
		repeats = min(repeats, precision.MinN)
	}
	p := protocol.Plan{Modes: []string{protocol.ModeSSH}, Repeats: repeats, Sizes: transferSizes,
		Algorithms: protocol.SSHCiphersOf(plan.Algorithms)}
	if len(p.Sizes) == 0 {
		p.Sizes = []int{protocol.DefaultSSHTransferBytes}
	}
	return &p
}

// cipherDialer is what mode ssh needs of a board's transport: the SSH transport implements it, local does not.
type cipherDialer interface {
	DialCipher(ctx context.Context, cipher string) (*sshtransport.CipherConn, error)
}

var _ cipherDialer = (*sshtransport.Transport)(nil)

// addSSHModeFact tells, for a plan that asks for mode ssh, whether the board can be measured that way; the
// agent's probe knows nothing of it.
func addSSHModeFact(f *protocol.Facts, modes []string, t Transport) {
	if !slices.Contains(modes, protocol.ModeSSH) {
		return
	}
	mf := protocol.ModeFact{Mode: protocol.ModeSSH, Available: true}
	if _, ok := t.(cipherDialer); !ok {
		mf.Available, mf.Reason = false, sshModeUnsupported
	}
	f.Modes = append(f.Modes, mf)
}

// measureSSH runs mode ssh on one board: every repeat × cipher × size, upload then download. A cipher the server
// does not offer is one skip; a connection or transfer that fails is a failed point, and the others go on.
func (r *boardRun) measureSSH() error {
	ctx, opts, b, agent, p, rec, onPoint := r.ctx, r.opts, r.b, r.deployed.remote, r.sshSweep, r.rec, r.onPoint
	cd, ok := r.t.(cipherDialer)
	if !ok {
		return rec.skip(ctx, protocol.Skip{Mode: protocol.ModeSSH, Reason: sshModeUnsupported}, *p)
	}
	refused := map[string]bool{}
	saidChain := false
	for r := range p.Repeats {
		for _, cipher := range p.Algorithms {
			for _, size := range p.Sizes {
				if refused[cipher] {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				pts, err := measureCipher(ctx, opts, cd, agent, cipher, int64(size), r)
				var refusal *sshtransport.CipherRefusedError
				switch {
				case ctx.Err() != nil:
					return ctx.Err()
				case errors.As(err, &refusal):
					refused[cipher] = true
					if err := rec.skip(ctx, protocol.Skip{Mode: protocol.ModeSSH, Algorithm: cipher, Reason: refusal.Error()}, *p); err != nil {
						return err
					}
					continue
				}
				for _, pt := range pts {
					if j := jumpFlag(pt.Flags); j != "" && !saidChain {
						saidChain = true
						opts.Logf("%s: mode ssh goes through the jump host(s) %s: its figures are those of the whole chain, not of the board's link alone", b.Name, j)
					}
					if err := rec.point(ctx, pt, *p, onPoint); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// measureCipher is the upload and download points of one cipher, size and repeat, on a fresh connection. A
// connection that cannot be made fails both points (err is only a *sshtransport.CipherRefusedError or ctx's).
func measureCipher(ctx context.Context, opts RunOptions, cd cipherDialer, agent, cipher string, size int64,
	repeat int) ([]protocol.Point, error) {
	if opts.sshGate != nil {
		select {
		case opts.sshGate <- struct{}{}:
			defer func() { <-opts.sshGate }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	point := func(op string) protocol.Point {
		return protocol.Point{Mode: protocol.ModeSSH, Algorithm: cipher, Op: op, BlockSize: int(size), Threads: 1,
			Repeat: repeat, Timing: "wall"}
	}
	c, err := cd.DialCipher(ctx, cipher)
	if errors.Is(err, sshtransport.ErrCipherNotOffered) || ctx.Err() != nil {
		return nil, err
	}
	if err != nil {
		up, down := point(protocol.OpUpload), point(protocol.OpDownload)
		up.Failed, up.Error = true, err.Error()
		down.Failed, down.Error = true, err.Error()
		return []protocol.Point{up, down}, nil
	}
	defer c.Close()
	var flags []string
	if c.Server() != "" {
		flags = append(flags, protocol.FlagSSHServer+c.Server())
	}
	if len(c.Jumpers()) > 0 {
		flags = append(flags, protocol.FlagProxyJump+strings.Join(c.Jumpers(), ","))
	}
	checkErr := c.Check(cipher)
	var pts []protocol.Point
	for _, op := range []string{protocol.OpUpload, protocol.OpDownload} {
		pt := point(op)
		pt.Driver = c.Negotiated()
		pt.Flags = slices.Clone(flags)
		var res transferResult
		err := checkErr
		if err == nil {
			if op == protocol.OpUpload {
				res, err = upload(ctx, c, agent, size)
			} else {
				res, err = download(ctx, c, agent, size)
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			pt.Failed, pt.Error = true, err.Error()
			pts = append(pts, pt)
			continue
		}
		fillTransferPoint(&pt, res)
		pts = append(pts, pt)
	}
	return pts, nil
}

// fillTransferPoint puts a transfer's figures into its point. The point's CPU fields are the board's (the
// whole board, from /proc/stat: cpu_pct 100 = one core, sys_busy_pct 100 = every core); the controller's own
// CPU % is a flag, and host-bound when it reached HostBoundPct of one core.
func fillTransferPoint(pt *protocol.Point, res transferResult) {
	pt.Count = float64(res.bytes)
	pt.Seconds, pt.WallS = res.seconds, res.seconds
	if res.seconds > 0 {
		pt.BytesPerSec = float64(res.bytes) / res.seconds
	}
	pt.CPUPct = res.board.BoardPct
	if res.board.Cores > 0 {
		pt.SysBusyPct = res.board.BoardPct / float64(res.board.Cores)
		busy := float64(res.board.BusyTicks) / 100 // USER_HZ ticks
		pt.UserS = busy                            // user+system of the whole board; /proc/stat's split is not kept
	}
	if res.controllerPct >= 0 {
		pt.Flags = append(pt.Flags, protocol.FlagControllerCPU+strconv.FormatFloat(res.controllerPct, 'f', 1, 64))
		if res.controllerPct >= protocol.HostBoundPct {
			pt.Flags = append(pt.Flags, protocol.FlagHostBound)
		}
	}
}

// cpuPct is the controller's CPU over wall, 100 = one core; -1 when getrusage is unavailable.
func cpuPct(before, after, wall time.Duration) float64 {
	if before < 0 || after < before || wall <= 0 {
		return -1
	}
	return float64(after-before) / float64(wall) * 100
}

func jumpFlag(flags []string) string {
	for _, f := range flags {
		if j, ok := strings.CutPrefix(f, protocol.FlagProxyJump); ok {
			return j
		}
	}
	return ""
}

// sshSlots is how many progress slots mode ssh fills: one per repeat, cipher and size (upload and download share
// it); none when the board cannot be measured that way.
func sshSlots(p *protocol.Plan, unavailable map[string]bool) int {
	if p == nil || unavailable[protocol.ModeSSH] {
		return 0
	}
	return p.Repeats * len(p.Algorithms) * len(p.Sizes)
}
