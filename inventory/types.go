package inventory

import (
	"time"

	"github.com/fleetlab/fleet/protocol"
	"github.com/fleetlab/fleet/validity"
)

// Board is one board after defaults are applied. The board named "local" is the host itself (no SSH).
type Board struct {
	Name         string            `toml:"-"`
	Host         string            `toml:"host"` // address or an alias from ~/.ssh/config
	Port         int               `toml:"port"` // 0: from ~/.ssh/config, else 22
	User         string            `toml:"user"`
	IdentityFile string            `toml:"identity_file"` // "~" expanded by the loader
	KnownHosts   string            `toml:"known_hosts"`   // "~" expanded by the loader
	ProxyJump    string            `toml:"proxy_jump"`    // "gw1,gw2" like OpenSSH ProxyJump
	Arch         string            `toml:"arch"`          // one of Arches; empty: detect
	Agent        string            `toml:"agent"`         // AgentGo, AgentShell; empty: the profile's, else chosen by the board's uname
	SoC          string            `toml:"soc"`
	Tags         []string          `toml:"tags"`
	Modes        []string          `toml:"modes"`   // what to sweep on this board; empty: what the profile asks for, else every mode the probe finds
	Env          map[string]string `toml:"env"`     // extra environment for openssl, merged over [defaults] env
	OpenSSL      string            `toml:"openssl"` // path of openssl on the board; empty: "openssl" from PATH
	Local        bool              `toml:"-"`       // the built-in local board
	Source       string            `toml:"-"`       // "file:line" where the board is defined, for messages; empty if built in

	Validity validity.Overrides `toml:"-"` // [boards.NAME.validity]: limits of the validity verdict
	Prepare  Preparation        `toml:"-"` // [boards.NAME.validity]: quiet_wait, governor

	KernelPatterns []string       `toml:"-"` // [boards.NAME.kernel_log] patterns: regexps, checked to compile
	ReconnectWait  *time.Duration `toml:"-"` // reconnect_wait; nil: the profile's, else 0 (do not wait)
	CPUs           string         `toml:"-"` // cpus: where openssl is pinned on this board; "": the profile's

	// Energy per point (power.go): PowerHwmon the board's own sensor, "NAME[/CHANNEL]" of power = "hwmon:…",
	// which the agent samples; PowerCommand a lab meter's command line, run on the controller, that prints watts.
	// At most one is set; neither: the board's points carry no energy.
	PowerHwmon   string `toml:"-"`
	PowerCommand string `toml:"-"`
}

// Profile is a named sweep: what to measure and how long.
type Profile struct {
	Name       string   `toml:"-"`
	Algorithms []string `toml:"algorithms"`
	Modes      []string `toml:"modes"` // for boards without modes of their own; empty: every mode the probe finds
	Sizes      []int    `toml:"sizes"` // block sizes in bytes; public-key algorithms ignore them
	Seconds    float64  `toml:"seconds"`
	Threads    int      `toml:"threads"`
	Repeats    int      `toml:"repeats"`
	Agent      string   `toml:"agent"` // AgentGo or AgentShell for the boards that do not say; empty: chosen per board

	// Adaptive repeats (precision.go): PrecisionPct > 0 repeats each point until the 95 % interval of
	// its median is within ±PrecisionPct %, at most MaxRepeat times (0: precision.DefaultMaxRepeat); Repeats is
	// then unused. Budget > 0: no repeat starts after that long on a board (the first of every point runs).
	PrecisionPct float64       `toml:"-"`
	MaxRepeat    int           `toml:"-"`
	Budget       time.Duration `toml:"-"`

	Validity validity.Overrides `toml:"-"` // [profiles.NAME.validity]; a board's own limits win over these
	Prepare  Preparation        `toml:"-"` // [profiles.NAME.validity]: quiet_wait, governor; a board's own win

	ReconnectWait *time.Duration `toml:"-"` // reconnect_wait; a board's own wins

	// CPUs pins every point: big, little, all, each (every cluster in turn) or a CPU list; "" not pinned. A
	// board's own cpus win. ClusterThreads: a pinned point runs -multi N with N the CPUs it is pinned to.
	CPUs           string `toml:"-"`
	ClusterThreads bool   `toml:"-"`
}

// LocalBoard is the name of the built-in board that is the host itself.
const LocalBoard = protocol.LocalBoard

// localBoard is the built-in local board when boards.toml does not list it. It has no modes of its own, like
// any board: software, the CPU path and the kernel's accelerators where the host has them (the others are
// recorded as skips with the reason).
func localBoard() Board {
	return Board{Name: LocalBoard, Local: true}
}
