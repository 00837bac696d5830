package protocol

// Plan is what a sweep measures; the controller sends it as JSON on the agent's stdin.
type Plan struct {
	OpenSSL    string            `json:"openssl,omitempty"` // path or name of the openssl binary; "openssl" by default
	Env        map[string]string `json:"env,omitempty"`     // extra environment for every openssl run (OPENSSL_CONF, ...)
	Algorithms []string          `json:"algorithms"`        // canonical names: aes-128-cbc, sha256, rsa2048, ecdsap256, ed25519
	Modes      []string          `json:"modes"`             // soft, cpu, devcrypto, afalg, kcapi, engine:NAME, provider:NAME
	Sizes      []int             `json:"sizes,omitempty"`   // block sizes in bytes; empty: OpenSSL's defaults
	Seconds    float64           `json:"seconds"`           // per point (per block size)
	Threads    int               `json:"threads,omitempty"` // -multi N when > 1
	Repeats    int               `json:"repeats,omitempty"` // at least 1; interleaved across modes
	Decrypt    bool              `json:"decrypt,omitempty"` // also measure decryption

	// Preparing the board (issue 12). QuietWaitS: wait up to this many seconds before the sweep for background
	// CPU to fall to QuietLimitPct (0: DefaultBackgroundPeakPct of the board's cores). Governor: set this
	// cpufreq governor for the sweep where the agent may, and restore the previous one when the sweep ends.
	QuietWaitS    float64 `json:"quiet_wait_s,omitempty"`
	QuietLimitPct float64 `json:"quiet_limit_pct,omitempty"`
	Governor      string  `json:"governor,omitempty"`
}

// DefaultSizes are the block sizes OpenSSL 1.1.1+ measures by default.
var DefaultSizes = []int{16, 64, 256, 1024, 8192, 16384}
