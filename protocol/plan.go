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
	Repeats    int               `json:"repeats,omitempty"` // at least 1; interleaved across modes; the cap with PrecisionPct
	Decrypt    bool              `json:"decrypt,omitempty"` // also measure decryption
	// CPUs pins every measurement: big, little, all, each (every cluster in turn) or a CPU list (cpus.go); ""
	// leaves the scheduler free. ClusterThreads: a pinned point runs -multi N with N the number of CPUs it is
	// pinned to, in place of Threads.
	CPUs           string `json:"cpus,omitempty"`
	ClusterThreads bool   `json:"cluster_threads,omitempty"`

	// Preparing the board for valid points. QuietWaitS: wait up to this many seconds before the sweep for
	// background CPU to fall to QuietLimitPct (0: DefaultBackgroundPeakPct of the board's cores). Governor: set
	// this cpufreq governor for the sweep where the agent may, and restore the previous one when the sweep ends.
	QuietWaitS    float64 `json:"quiet_wait_s,omitempty"`
	QuietLimitPct float64 `json:"quiet_limit_pct,omitempty"`
	Governor      string  `json:"governor,omitempty"`

	// Adaptive repeats (--precision). PrecisionPct > 0: repeat each point, interleaved as above, until the 95 %
	// confidence interval of its median (package precision) is within ±PrecisionPct % of the median, at most
	// Repeats times; repeats the agent judges invalid (Limits) or failed do not count. BudgetS > 0: after that
	// many seconds of sweeping no further repeat starts (the first of every point always runs). An agent that
	// predates these fields repeats every point Repeats times: more work, never less.
	PrecisionPct float64         `json:"precision_pct,omitempty"`
	BudgetS      float64         `json:"budget_s,omitempty"`
	Limits       *ValidityLimits `json:"validity_limits,omitempty"`

	// Verification. Verify: before measuring each mode and algorithm, run the verification inputs
	// (verify.go) through the same path and send a VerifyReport. VerifyThreads > 0: for accelerated modes also
	// run VerifyThreads workers in parallel on that path for VerifySeconds (0: 2 s).
	Verify        bool    `json:"verify,omitempty"`
	VerifyThreads int     `json:"verify_threads,omitempty"`
	VerifySeconds float64 `json:"verify_seconds,omitempty"`
	// VerifyTimeoutS is the one deadline of each path's (mode and algorithm's) whole verification, every input
	// and the concurrency check (0: 60 s); past it the path's later inputs are skipped, naming it.
	VerifyTimeoutS float64 `json:"verify_timeout_s,omitempty"`
	// VerifySign: the key and message of each signature algorithm's check (verify_sign.go), by plan name
	// ("rsa2048"); an algorithm without one is verified as unknown.
	VerifySign map[string]VerifySignInput `json:"verify_sign,omitempty"`

	// KernelPatterns are the board's own kernel-log patterns (boards.toml kernel_log), matched on the board after
	// the defaults (NewKernelMatcher) so that a line the caps leave out is still judged.
	KernelPatterns []string `json:"kernel_patterns,omitempty"`

	// Power asks for each point's energy (energy.go); nil: none measured.
	Power *PowerPlan `json:"power,omitempty"`
}

// ValidityLimits are the validity thresholds boards.toml sets for a board under the run's profile (nil: the
// default for the board's cores), sent so that the agent judges each repeat as the controller will.
type ValidityLimits struct {
	BackgroundPeakPct *float64 `json:"background_peak_pct,omitempty"`
	BackgroundAvgPct  *float64 `json:"background_avg_pct,omitempty"`
	ThrottlePct       *float64 `json:"throttle_pct,omitempty"`
}

// DefaultSizes are the block sizes OpenSSL 1.1.1+ measures by default.
var DefaultSizes = []int{16, 64, 256, 1024, 8192, 16384}
