package protocol

// Facts is what the probe learns about a board. Every field is best effort: a fact that could not be read is
// left empty and its reason is added to Errors, so one failing fact never fails the probe.
type Facts struct {
	Hostname  string            `json:"hostname"`
	Uname     string            `json:"uname"`   // uname -a
	Machine   string            `json:"machine"` // uname -m
	OSRelease map[string]string `json:"os_release,omitempty"`
	Kernel    string            `json:"kernel"`            // uname -r
	BootID    string            `json:"boot_id,omitempty"` // /proc/sys/kernel/random/boot_id: a new one each boot
	// Agent is how the board was measured: "" by the Go agent, "shell" by the controller through the board's
	// POSIX shell and openssl (the shell path), with AgentReason saying why the agent could not run there.
	Agent       string `json:"agent,omitempty"`
	AgentReason string `json:"agent_reason,omitempty"`

	CPU    CPUFacts `json:"cpu"`
	MemKiB int64    `json:"mem_kib,omitempty"`

	OpenSSL        string            `json:"openssl,omitempty"`         // "OpenSSL 3.0.19 27 Jan 2026"
	OpenSSLVersion string            `json:"openssl_version,omitempty"` // "3.0.19"
	OpenSSLBuild   string            `json:"openssl_build,omitempty"`   // openssl version -a, whole
	OpenSSLPath    string            `json:"openssl_path,omitempty"`
	Engines        map[string]string `json:"engines,omitempty"` // name -> "available" or "not available: <reason>"

	DevCrypto  bool        `json:"dev_crypto"`             // /dev/crypto present
	AFALG      bool        `json:"af_alg"`                 // AF_ALG socket works
	AFALGError string      `json:"af_alg_error,omitempty"` // why not
	ProcCrypto []CryptoAlg `json:"proc_crypto,omitempty"`
	Interrupts []string    `json:"crypto_irqs,omitempty"` // /proc/interrupts lines that look like crypto devices
	Modes      []ModeFact  `json:"modes"`                 // every known mode: available or why not
	Errors     []string    `json:"errors,omitempty"`
	// UnknownAlgorithms are the plan's algorithms the board's openssl does not list (`openssl list` of its
	// ciphers and digests, asked for by the probe's --algorithms): the controller refuses the board before measuring.
	UnknownAlgorithms []UnknownAlgorithm `json:"unknown_algorithms,omitempty"`

	// What the openssl processes ran with and what the kernel offers them: the facts a lab changes on purpose
	// or by accident between two nights, which `changes`, `history` and `show` diff.
	// OpenSSLEnv: every OPENSSL_* variable of the agent's environment and every variable the plan sets for
	// openssl (boards.toml env), by name; a mode's own mask (soft's OPENSSL_armcap=0) is the mode, not listed.
	// Never omitted by a probe that records it ({} when there are none): nil means not recorded (an older agent,
	// an import), which a diff must not read as "unset".
	OpenSSLEnv map[string]string `json:"openssl_env"`
	// OpenSSLConf is the configuration file openssl reads (OPENSSL_CONF, else OPENSSLDIR/openssl.cnf), and
	// OpenSSLConfDigest the sha256 (hex, first 16 digits) of the sections its openssl_conf names that load
	// engines or providers: "none" when it names none, "" when the file could not be read (the reason in Errors).
	OpenSSLConf       string `json:"openssl_conf,omitempty"`
	OpenSSLConfDigest string `json:"openssl_conf_digest,omitempty"`
	// OpenSSLConfRoutes is what in that configuration hands openssl runs without -engine (cpu, soft) to an engine
	// or a provider other than OpenSSL's own, each "where: what" ("engine afalg [afalg_sect]: default_algorithms =
	// ALL"); the points of those modes it concerns carry a flag naming it.
	OpenSSLConfRoutes []string `json:"openssl_conf_routes,omitempty"`
	OpenSSLSHA256     string   `json:"openssl_sha256,omitempty"` // of the openssl binary at OpenSSLPath, hex
	// ProbeCache says where the openssl facts (version, engines, providers, the binary's sha256) came from: "hit"
	// the agent's cache of an earlier probe whose stamp still holds, "miss" the commands ran (and were cached),
	// "" no cache asked for.
	ProbeCache    string `json:"probe_cache,omitempty"`
	KernelCmdline string `json:"kernel_cmdline,omitempty"` // /proc/cmdline
	// Modules are the names of the loaded kernel modules, in /proc/modules' order; nil when the kernel has no
	// /proc/modules (no module support). Every name is kept (the raw fact, a few hundred bytes); what is compared
	// over time is CryptoModules of them, so that a better filter applies to old runs too.
	Modules []string `json:"modules,omitempty"`

	// Evidence is the board's state before the sweep (validity evidence): governor, temperatures, load.
	Evidence *Evidence `json:"evidence,omitempty"`
	// Prepared says what the agent did to prepare the board (quiet wait, governor) and how it went.
	Prepared []string `json:"prepared,omitempty"`
	// Power is what the board offers to measure energy with and what the sweep used (energy.go); nil from
	// agents that predate it.
	Power *PowerFacts `json:"power,omitempty"`
}

// CPUFacts describes the processor.
type CPUFacts struct {
	Model       string   `json:"model,omitempty"` // "model name" or the core named from "CPU part" (Cortex-A53)
	Implementer string   `json:"implementer,omitempty"`
	Part        string   `json:"part,omitempty"` // CPU part, hex
	Cores       int      `json:"cores"`
	CurMHz      float64  `json:"cur_mhz,omitempty"`
	MaxMHz      float64  `json:"max_mhz,omitempty"`
	Governor    string   `json:"governor,omitempty"`
	Features    []string `json:"features,omitempty"` // of interest: aes, pmull, sha1, sha2, sha512, neon, vfp, aes-ni (x86 "aes"), sha_ni, pclmulqdq, avx2
	// Clusters are the board's classes of cores, smallest first (cpus.go); nil when the probe could not tell
	// (no sysfs, an older agent, an import).
	Clusters []Cluster `json:"clusters,omitempty"`
}

// CryptoAlg is one entry of /proc/crypto.
type CryptoAlg struct {
	Name     string `json:"name"`
	Driver   string `json:"driver"`
	Module   string `json:"module"`
	Priority int    `json:"priority"`
	Type     string `json:"type"`
	Selftest string `json:"selftest,omitempty"`
	Async    bool   `json:"async,omitempty"`    // "async : yes": requests complete later, through a callback
	Internal bool   `json:"internal,omitempty"` // "internal : yes": a building block AF_ALG cannot bind
}

// ModeFact says whether a mode can be measured on the board.
type ModeFact struct {
	Mode      string `json:"mode"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // why not, or how (e.g. "engine devcrypto")
}

// UnknownAlgorithm is an algorithm of a plan that the board's openssl does not have, with the name it has that is
// nearest ("" when none is near).
type UnknownAlgorithm struct {
	Name       string `json:"name"`
	Suggestion string `json:"suggestion,omitempty"`
}
