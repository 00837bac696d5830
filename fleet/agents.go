package fleet

import (
	"context"
	"sync"
)

// Agents hands out agent binaries per board arch: the one given with --agent, or one built (once per arch per
// process, however many boards share it) from the embedded agent source.
type Agents struct {
	Path string // --agent: use this binary for every board (its ELF machine is checked against the board's arch)
	Logf func(format string, args ...any)

	mu    sync.Mutex
	built map[Target]*agentBuild
}

type agentBuild struct {
	once sync.Once
	path string
	err  error
}

// For returns the path of an agent for arch ("arm64", "armv7", or a `uname -m` value).
func (a *Agents) For(ctx context.Context, arch string) (string, error) {
	t, err := TargetForArch(arch)
	if err != nil {
		return "", err
	}
	if a.Path != "" {
		return AgentFromFile(a.Path, t)
	}
	a.mu.Lock()
	if a.built == nil {
		a.built = map[Target]*agentBuild{}
	}
	b := a.built[t]
	if b == nil {
		b = &agentBuild{}
		a.built[t] = b
	}
	a.mu.Unlock()
	b.once.Do(func() { b.path, b.err = BuildAgent(ctx, BuildOptions{Target: t, Logf: a.Logf}) })
	return b.path, b.err
}
