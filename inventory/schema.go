package inventory

import "strings"

// The document types mirror boards.toml exactly. Pointer fields tell "absent" from "set to the zero value", which
// the merge of [defaults] into each board needs (an explicit `tags = []` clears the default tags).

// fileDoc is the whole of boards.toml.
type fileDoc struct {
	Defaults *defaultsDoc          `toml:"defaults"`
	Boards   map[string]boardDoc   `toml:"boards"`
	Profiles map[string]profileDoc `toml:"profiles"`
}

// defaultsDoc is [defaults]: what every board gets unless it says otherwise.
type defaultsDoc struct {
	User         *string           `toml:"user"`
	Port         *int64            `toml:"port"`
	IdentityFile *string           `toml:"identity_file"`
	KnownHosts   *string           `toml:"known_hosts"`
	ProxyJump    *string           `toml:"proxy_jump"`
	Tags         *[]string         `toml:"tags"`
	Modes        *[]string         `toml:"modes"`
	Env          map[string]string `toml:"env"`
	OpenSSL      *string           `toml:"openssl"`
	Agent        *string           `toml:"agent"`
}

// boardDoc is one [boards.NAME] table.
type boardDoc struct {
	Host         *string           `toml:"host"`
	Port         *int64            `toml:"port"`
	User         *string           `toml:"user"`
	IdentityFile *string           `toml:"identity_file"`
	KnownHosts   *string           `toml:"known_hosts"`
	ProxyJump    *string           `toml:"proxy_jump"`
	Arch         *string           `toml:"arch"`
	SoC          *string           `toml:"soc"`
	Tags         *[]string         `toml:"tags"`
	Modes        *[]string         `toml:"modes"`
	Env          map[string]string `toml:"env"`
	OpenSSL      *string           `toml:"openssl"`
	Agent        *string           `toml:"agent"`
	Validity     *validityDoc      `toml:"validity"`
	CPUs         *string           `toml:"cpus"` // big, little, all, each or a CPU list: where openssl is pinned

	KernelLog     *kernelLogDoc `toml:"kernel_log"`
	ReconnectWait *string       `toml:"reconnect_wait"`

	Power        *string `toml:"power"`         // power.go: "hwmon:NAME[/CHANNEL]"
	PowerCommand *string `toml:"power_command"` // power.go: a lab meter's command, run on the controller
}

// profileDoc is one [profiles.NAME] table.
type profileDoc struct {
	Algorithms *[]string `toml:"algorithms"`
	Modes      *[]string `toml:"modes"`
	Sizes      *[]int64  `toml:"sizes"`
	Seconds    *float64  `toml:"seconds"`
	Threads    *int64    `toml:"threads"`
	Repeats    *int64    `toml:"repeats"`
	Precision  *float64  `toml:"precision"`  // percent: 2 for ±2 %
	MaxRepeat  *int64    `toml:"max_repeat"` // cap of adaptive repeats
	Budget     *string   `toml:"budget"`     // "60m": no repeat starts after that long on a board
	Agent      *string   `toml:"agent"`      // "go" or "shell" for boards that do not say

	ReconnectWait *string `toml:"reconnect_wait"` // "3m": wait for a board lost mid-sweep to come back

	CPUs           *string `toml:"cpus"`            // big, little, all, each or a CPU list (protocol.CheckCPUs)
	ClusterThreads *bool   `toml:"cluster_threads"` // a pinned point runs -multi N, N its CPU count

	Validity *validityDoc `toml:"validity"`
}

// The keys each table accepts, in the order the messages list them.
var (
	rootKeys     = []string{"defaults", "boards", "profiles"}
	defaultsKeys = []string{"user", "port", "identity_file", "known_hosts", "proxy_jump", "tags", "modes", "env", "openssl", "agent"}
	boardKeys    = []string{"host", "port", "user", "identity_file", "known_hosts", "proxy_jump", "arch", "soc", "tags", "modes", "env", "openssl", "agent", "validity",
		"kernel_log", "reconnect_wait", "cpus", "power", "power_command"}
	profileKeys = []string{"algorithms", "modes", "sizes", "seconds", "threads", "repeats", "precision", "max_repeat", "budget", "agent", "validity",
		"reconnect_wait", "cpus", "cluster_threads"}
	// localRefused are the board keys that make no sense for the built-in local board: it is reached without SSH.
	localRefused = []string{"host", "port", "user", "identity_file", "known_hosts", "proxy_jump", "arch"}
)

// expectedType describes, for messages, the TOML type the key at path wants.
func expectedType(path []string) string {
	n := len(path)
	switch {
	case n == 0:
		return "a table"
	case n == 1, n == 2 && path[0] != "defaults":
		return "a table"
	case path[n-2] == "env":
		return "a string"
	case path[n-2] == "validity" && (path[n-1] == "quiet_wait" || path[n-1] == "governor"):
		return "a string"
	case path[n-2] == "validity":
		return "a number"
	case path[n-1] == "patterns":
		return `an array of strings (regular expressions)`
	case path[n-1] == "kernel_log":
		return `a table, such as kernel_log = { patterns = ["sysrq: HELP"] }`
	case path[n-1] == "reconnect_wait":
		return `a duration string, such as "3m"`
	case strings.HasPrefix(path[n-1], "["):
		if path[n-2] == "sizes" {
			return "an integer"
		}
		return "a string"
	}
	switch path[n-1] {
	case "port", "threads", "repeats", "max_repeat":
		return "an integer"
	case "seconds":
		return "a number"
	case "precision":
		return "a number (percent, such as 2 for ±2 %)"
	case "budget":
		return `a duration string, such as "60m"`
	case "cpus":
		return `a string: big, little, all, each or a CPU list such as "0-3,5"`
	case "cluster_threads":
		return "a boolean"
	case "tags", "modes", "algorithms":
		return "an array of strings"
	case "sizes":
		return "an array of integers"
	case "validity":
		return `a table of limits, such as validity = { background_peak_pct = 8, background_avg_pct = 2 }`
	case "env":
		return `a table of strings, such as env = { OPENSSL_CONF = "/etc/ssl/openssl.cnf" }`
	}
	return "a string"
}
