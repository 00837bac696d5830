package agent

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// prepareOpenSSL builds the openssl commands of one (mode, algorithm), or says why it cannot be measured.
func (s *sweepState) prepareOpenSSL(openssl string, v opensslVersion, mode, alg string) ([]sweepJob, string) {
	if mode == protocol.ModeAFALG && (!strings.HasSuffix(alg, "-cbc") || !strings.HasPrefix(alg, "aes-")) {
		// stock OpenSSL's afalg engine offloads nothing else: the rest would run in software under its name
		return nil, "afalg engine offloads only aes-128/192/256-cbc"
	}
	var jobs []sweepJob
	directions := []bool{false}
	if s.plan.Decrypt && isSweepCipher(alg) {
		directions = append(directions, true)
	}
	for _, dec := range directions {
		cmds, err := buildSpeedCommands(openssl, v, s.facts.Machine, s.plan, mode, alg, dec)
		if err != nil {
			return nil, err.Error()
		}
		whole, why := seriesCommand(cmds, v, s.plan)
		if why != "" {
			if s.seriesWhy == nil {
				s.seriesWhy = map[string][]string{}
			}
			if name := mode + " " + alg; !slices.Contains(s.seriesWhy[why], name) {
				s.seriesWhy[why] = append(s.seriesWhy[why], name)
			}
		}
		for i := range cmds {
			jobs = append(jobs, sweepJob{mode: mode, alg: alg, speed: &cmds[i], series: whole})
		}
	}
	return jobs, ""
}

// engineSetRE matches OpenSSL's confirmation that an engine loaded: `Engine "afalg" set.` (3.x) or
// `engine "cryptodev" set.` (1.x).
var engineSetRE = protocol.MustPattern(`(?i)engine "([^"]+)" set`)

// engineFallback says why the numbers of a run with an engine cannot be the engine's: OpenSSL prints
// "Invalid engine" and carries on in software with exit 0.
func engineFallback(engine, stdout, stderr string) string {
	if engine == "" {
		return ""
	}
	out := stderr + "\n" + stdout
	if i := strings.Index(strings.ToLower(out), "invalid engine"); i >= 0 {
		line, _, _ := strings.Cut(out[i:], "\n")
		return fmt.Sprintf("engine %s did not load (%s): openssl ran in software", engine, strings.TrimSpace(line))
	}
	for _, m := range engineSetRE.FindAllStringSubmatch(out, -1) {
		if m[1] == engine {
			return ""
		}
	}
	return fmt.Sprintf("engine %s: openssl did not confirm it was set", engine)
}

// runOpenSSL runs one openssl command, sends its raw output and its points. Several points of one command (an
// OpenSSL 1.0 run over its sizes, rsa sign and verify) share its accounting, divided.
func (s *sweepState) runOpenSSL(ctx context.Context, j sweepJob, repeat int) error {
	c := j.speed
	// a hung driver must not hang the sweep: bound each run well above what it should take
	runCtx, cancel := context.WithTimeout(ctx, speedTimeout(c))
	defer cancel()
	res, before, after, pin := s.measureJob(runCtx, j, c.Argv, c.Env)
	if ctx.Err() != nil {
		return fmt.Errorf("sweep: %w", ctx.Err())
	}
	return s.openSSLPoints(ctx, j, repeat, res, func(p *protocol.Point, n int) {
		splitAccounting(p, n, res, before, after)
		pin.mark(p)
		s.window(p, before, after, n > 1)
	})
}

// splitAccounting gives p its share of a command's accounting: all of it when the command gave one point, else
// 1/n of its wall, user and system time, flagged.
func splitAccounting(p *protocol.Point, n int, res childResult, before, after systemSample) {
	if n > 1 {
		p.Flags = append(p.Flags, fmt.Sprintf(flagSplitAccounts, n, n))
		setAccounting(p, res.WallS/float64(n), res.UserS/float64(n), res.SysS/float64(n), before, after)
		return
	}
	setAccounting(p, res.WallS, res.UserS, res.SysS, before, after)
}

// openSSLPoints sends the raw output of j's command as it ran (res) and its points; account fills each point's
// accounting (n is how many points the command gave).
func (s *sweepState) openSSLPoints(ctx context.Context, j sweepJob, repeat int, res childResult, account func(p *protocol.Point, n int)) error {
	c := j.speed
	s.rawID++
	raw := protocol.Raw{ID: s.rawID, Command: c.Argv, Env: c.Env, Stdout: res.Stdout, Stderr: res.Stderr, Exit: res.Exit}
	if err := s.enc.Encode(protocol.TypeRaw, &raw); err != nil {
		return err
	}
	if res.Err != nil {
		return s.errorf("%s: %v", strings.Join(c.Argv, " "), res.Err)
	}
	points, failure, err := s.parseSpeed(c, res)
	if err != nil {
		return err
	}
	v := s.judgeSpeedCommand(ctx, j, failure)
	v.rawID = raw.ID
	for i := range points {
		p := &points[i]
		s.labelOpenSSLPoint(p, j, repeat, v)
		account(p, len(points))
		s.judgeOpenSSLPoint(p, j.alg, v)
		if err := s.point(p); err != nil {
			return err
		}
	}
	return nil
}

// speedVerdict is what one openssl command's run says of every point it gave.
type speedVerdict struct {
	rawID       int    // the raw message of the run, which the points reference
	failure     string // why the command's numbers are not the mode's; "" when they are
	driver      string // the kernel driver that served the points, where known
	sessionFlag string // devcrypto: why driver is /proc/crypto's guess, when it is
	cpuLike     bool   // cpu or soft, naming no engine: the board's configuration may still hand the work to one
	routed      string // for cpuLike: the flag saying the configuration routes the algorithm to an engine
}

// parseSpeed parses the output of c's run res into its points, and says why they all fail, if they do: the
// engine did not load, OpenSSL reported a failed run, or the command exited non-zero. A command that exits
// non-zero or gives no point is an error line too, with its first error line and the parser's complaint.
func (s *sweepState) parseSpeed(c *speedCommand, res childResult) (points []protocol.Point, failure string, err error) {
	runs, perr := opensslspeed.Parse(res.Stderr+"\n"+res.Stdout, opensslspeed.Hint{Command: c.Argv, Seconds: c.Seconds, Version: s.facts.OpenSSLVersion})
	var runFailed []string
	for _, r := range runs {
		points = append(points, r.Points...)
		if r.Failed != "" {
			runFailed = append(runFailed, r.Failed)
		}
	}
	failure = engineFallback(c.Engine, res.Stdout, res.Stderr)
	if failure == "" && len(runFailed) > 0 {
		failure = strings.Join(runFailed, "; ")
	}
	if res.Exit != 0 {
		failure = strings.TrimPrefix(failure+fmt.Sprintf("; exit %d", res.Exit), "; ")
	}
	if res.Exit != 0 || len(points) == 0 {
		why := firstErrorLine(res.Stderr)
		if perr != nil {
			why += "; parse: " + perr.Error()
		}
		if err := s.errorf("%s: exit %d, %d points: %s", strings.Join(c.Argv, " "), res.Exit, len(points), why); err != nil {
			return nil, "", err
		}
	}
	return points, failure, nil
}

// judgeSpeedCommand is the verdict on j's command, given the failure its output shows: which kernel driver served
// it (for the modes that go through the kernel crypto API), whether devcrypto's engine really took the algorithm,
// and whether the configuration of cpu and soft routes it to an engine.
func (s *sweepState) judgeSpeedCommand(ctx context.Context, j sweepJob, failure string) speedVerdict {
	c := j.speed
	v := speedVerdict{failure: failure}
	if spec, ok := protocol.LookupMode(j.mode); ok && spec.Kernel {
		// devcrypto's and afalg's engines hand the work to the kernel crypto API, which picks its driver by priority
		if spec, ok := kcapiSpecOf(j.alg); ok {
			v.driver = bestCryptoDriver(s.facts.ProcCrypto, spec.Name, spec.Kind)
		}
	}
	if j.mode == protocol.ModeDevCrypto {
		d, note, software := s.devcryptoDriver(ctx, c, j.alg)
		switch {
		case software != "":
			// the engine left the algorithm to OpenSSL's own code: the numbers are cpu's, not devcrypto's
			v.driver = ""
			if v.failure == "" {
				v.failure = software
			}
		case d != "":
			v.driver = d
		default:
			v.sessionFlag = note
		}
	}
	v.cpuLike = c.Engine == "" && (j.mode == protocol.ModeCPU || j.mode == protocol.ModeSoft)
	if v.cpuLike {
		v.routed = routedFlag(s.facts.OpenSSLConf, s.facts.OpenSSLConfRoutes, j.alg)
	}
	return v
}

// labelOpenSSLPoint names what p, a point parsed from j's command, measured, before its accounting: the parser
// knows only what openssl printed.
func (s *sweepState) labelOpenSSLPoint(p *protocol.Point, j sweepJob, repeat int, v speedVerdict) {
	c := j.speed
	p.Mode, p.Repeat, p.Threads, p.Engine, p.RawID = j.mode, repeat, s.threads, c.Engine, v.rawID
	if p.Algorithm == "" {
		p.Algorithm = j.alg
	}
	if c.Decrypt && p.Op == "" {
		p.Op = "decrypt"
	}
	if p.Driver == "" {
		p.Driver = v.driver
	}
	p.Flags = append(p.Flags, c.Flags...)
	if v.sessionFlag != "" {
		p.Flags = append(p.Flags, v.sessionFlag)
	}
}

// judgeOpenSSLPoint fails p, accounted already, when its command's numbers are not its mode's: the command's
// failure, or for cpu and soft the kernel doing the work of an algorithm the configuration routes to an engine.
// Kernel work without such a route is only a flag.
func (s *sweepState) judgeOpenSSLPoint(p *protocol.Point, alg string, v speedVerdict) {
	if v.routed != "" {
		p.Flags = append(p.Flags, v.routed)
	}
	failure := v.failure
	if v.cpuLike {
		if k := kernelWork(p); k != "" {
			if v.routed != "" && failure == "" {
				// the configuration hands the algorithm to an engine and the kernel did the work: not the CPU's numbers
				failure = fmt.Sprintf("%s, and the board's OpenSSL configuration %s routes %s to an engine: openssl did not run it "+
					"on the CPU (measure the engine as its own mode; for cpu and soft, give the board an OPENSSL_CONF without it)",
					k, s.facts.OpenSSLConf, alg)
			} else {
				p.Flags = append(p.Flags, k)
			}
		}
	}
	if failure != "" && !p.Failed {
		p.Failed = true
		p.Error = failure
	}
}

// speedTimeout bounds one openssl speed run: four times its nominal duration plus a minute. Without -bytes an
// OpenSSL run measures up to six sizes, an asymmetric one up to four operations, a public-key group four for
// each of its algorithms.
func speedTimeout(c *speedCommand) time.Duration {
	points := 1.0
	switch {
	case len(c.Algs) > 0: // a public-key group: up to four operations an algorithm
		points = 4 * float64(len(c.Algs))
	case c.Size == 0:
		points = 6
	}
	return time.Duration((4*max(c.Seconds, 1)*points + 60) * float64(time.Second))
}

// devcryptoDriver is the driver cryptodev says serves alg (asked once per algorithm), or "" and a flag saying why
// the point's driver is /proc/crypto's guess. software is set, saying why, when cryptodev's driver is not a
// kernel-driver-only one and the devcrypto engine's USE_SOFTDRIVERS (the board's OpenSSL configuration's, else
// the engine's built-in default) is not 1: then the engine does not take the algorithm, and openssl runs it in
// software under -engine devcrypto (it still prints `Engine "devcrypto" set.`). c is the point's speed command:
// its openssl and environment are the ones asked for the engine's default.
func (s *sweepState) devcryptoDriver(ctx context.Context, c *speedCommand, alg string) (driver, flag, software string) {
	if s.sessionDrivers == nil {
		s.sessionDrivers = map[string]devcryptoAnswer{}
	}
	a, seen := s.sessionDrivers[alg]
	if !seen {
		a.session, a.err = devcryptoDriver(s.root+"/dev/crypto", alg)
		s.sessionDrivers[alg] = a
	}
	switch {
	case a.err != nil:
		return "", "driver-inferred: " + a.err.Error() + "; the driver is /proc/crypto's highest priority", ""
	case !a.session.KernelOnly && s.devcryptoSoftDrivers(ctx, c) != "1":
		return "", "", fmt.Sprintf("engine devcrypto does not use %s for %s: cryptodev does not mark it a kernel-driver-only "+
			"(hardware) driver, and the engine takes such a driver only with USE_SOFTDRIVERS = 1 (%s): openssl ran in software",
			a.session.Driver, alg, s.softDriversWhy)
	}
	return a.session.Driver, "", ""
}

// devcryptoAnswer is cryptodev's answer for one algorithm, kept for the sweep.
type devcryptoAnswer struct {
	session devcryptoSession
	err     error
}

// devcryptoSoftDrivers is the devcrypto engine's USE_SOFTDRIVERS (found once): the board's OpenSSL configuration
// sets it, or else the engine's built-in default holds, which `openssl engine -vvv devcrypto` prints in the
// control's help ("[default=2]"). OpenSSL's own builds say 2; one built for a board whose drivers are all
// software (the QEMU lab's, lab/devcrypto) says 1. Setting it in the configuration is no way to measure such a
// board: the control registers the engine's algorithms, and OpenSSL then uses the engine for every openssl run,
// cpu and soft included. "" when neither says; softDriversWhy says where it looked.
func (s *sweepState) devcryptoSoftDrivers(ctx context.Context, c *speedCommand) string {
	if s.softDriversWhy != "" {
		return s.softDrivers
	}
	var why string
	if conf := s.facts.OpenSSLConf; conf == "" {
		why = "no OpenSSL configuration file known"
	} else if b, err := os.ReadFile(conf); err != nil {
		why = err.Error()
	} else if s.softDrivers = engineSetting(parseOpenSSLConf(string(b)), "devcrypto", "USE_SOFTDRIVERS"); s.softDrivers != "" {
		s.softDriversWhy = conf + " sets " + s.softDrivers
		return s.softDrivers
	} else {
		why = conf + " does not set it"
	}
	s.softDrivers = s.engineSoftDriversDefault(ctx, c)
	if s.softDrivers == "" {
		s.softDriversWhy = why + "; openssl engine -vvv devcrypto names no default: engine default 2"
	} else {
		s.softDriversWhy = why + "; the engine's default is " + s.softDrivers + " (openssl engine -vvv devcrypto)"
	}
	return s.softDrivers
}

// engineSoftDriversDefault runs `openssl engine -vvv devcrypto` as the speed command c would run and returns the
// USE_SOFTDRIVERS default its help names, "" when it names none (or openssl fails).
func (s *sweepState) engineSoftDriversDefault(ctx context.Context, c *speedCommand) string {
	if c == nil || len(c.Argv) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, verifyChildTimeout)
	defer cancel()
	res, _, _ := s.measureChild(ctx, []string{c.Argv[0], "engine", "-vvv", "devcrypto"}, c.Env)
	if res.Err != nil || res.Exit != 0 {
		return ""
	}
	return softDriversDefault(res.Stdout)
}

// softDriversRe finds the default in the help of the devcrypto engine's USE_SOFTDRIVERS control, as OpenSSL
// 1.1.1 and 3.x print it: "USE_SOFTDRIVERS: specifies whether to use software (not accelerated) drivers (0=use
// only accelerated drivers, 1=allow all drivers, 2=use if acceleration can't be determined) [default=2]".
var softDriversRe = protocol.MustPattern(`(?m)^\s*USE_SOFTDRIVERS:.*\[default=([0-9]+)\]`)

// softDriversDefault is the USE_SOFTDRIVERS default in `openssl engine -vvv devcrypto`'s output, "" if none.
func softDriversDefault(out string) string {
	if m := softDriversRe.FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return ""
}

// engineSetting is key in the section of engine id that the configuration loads (openssl_conf → engines →
// the entry named id, or the section whose engine_id is id), "" when there is none.
func engineSetting(c opensslConf, id, key string) string {
	init := c.value("", "openssl_conf")
	if init == "" {
		return ""
	}
	list := c.value(init, "engines")
	for _, kv := range c[list] {
		if kv.Key == id || c.value(kv.Value, "engine_id") == id {
			if v := c.value(kv.Value, key); v != "" {
				return v
			}
		}
	}
	return ""
}
