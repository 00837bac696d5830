package capture

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

// What an imported capture's commands say beside their numbers: their mode, the OpenSSL environment they ran
// with, and the evidence of their validity.

// judgeImported gives a point its verdict from the evidence its capture carries: the CPU share of a CPU-timed
// line, which says whether the machine was busy, in soft and cpu, whose work is user time. A wall-timed capture
// (-elapsed, -multi) carries none, and in the modes that hand the work to the kernel or a device user time is
// not the work: their validity stays unknown (""), and regress and changes judge them as they are.
func judgeImported(p *protocol.Point, limits validity.Overrides) {
	if p.Evidence == nil || p.Failed || protocol.IsAccelerated(p.Mode) || protocol.IsKCAPIMode(p.Mode) {
		return
	}
	v := validity.Judge(*p, limits)
	p.Validity, p.ValidityReasons = v.Validity, v.Reasons
}

// withMode gives r mode when its capture does not decide one, and refuses a capture that decides another.
func withMode(path string, r opensslspeed.Run, mode string) (opensslspeed.Run, error) {
	switch {
	case mode == "" || r.Mode == mode:
		return r, nil
	case r.ModeFrom != "":
		return r, fmt.Errorf("%s:%d: the capture says mode %s (from its %s), --mode says %s", path, r.Line, r.Mode, r.ModeFrom, mode)
	}
	r.Mode = mode
	r.Points = slices.Clone(r.Points)
	for i := range r.Points {
		r.Points[i].Mode = mode
	}
	return r, nil
}

// environment keeps the OpenSSL environment a command shows, refusing one that differs from the run's: the
// capability mask of a soft command is its mode, not its environment.
func (ri *runImport) environment(path string, r opensslspeed.Run) error {
	if !r.EnvKnown {
		return nil
	}
	env := maps.Clone(r.Env)
	if r.Mode == protocol.ModeSoft && r.ModeFrom == "environment" {
		delete(env, "OPENSSL_armcap")
		delete(env, "OPENSSL_ia32cap")
	}
	at := fmt.Sprintf("%s:%d", path, r.Line)
	if !ri.envKnown {
		ri.env, ri.envAt, ri.envKnown = env, at, true
		return nil
	}
	if !maps.Equal(ri.env, env) {
		return fmt.Errorf("%s: openssl ran with %s, but at %s with %s: %w; import them as separate runs (--run-per-file, --split)",
			at, envWords(env), ri.envAt, envWords(ri.env), ErrMixedEnvironment)
	}
	return nil
}

// envWords lists an environment as NAME=value, sorted, or "no OPENSSL_* variable".
func envWords(env map[string]string) string {
	if len(env) == 0 {
		return "no OPENSSL_* variable"
	}
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		kv = append(kv, k+"="+env[k])
	}
	return strings.Join(kv, " ")
}
