package protocol

// The standard modes. A mode names how a point was measured; every point and skip carries one.
//
// Adding a mode: add its constant here and to StandardModes; teach the probe when it is available
// (agent/probe_modes.go) and the sweep how to measure it (agent/sweep_argv.go for an openssl flag or environment,
// or a runner of its own like agent/sweep_kcapi.go); IsAccelerated below decides whether report treats it as an accelerator (speedups, crossover); and add
// it to the README's list of modes. inventory validates mode names against StandardModes, and the CLI's --modes
// help lists them from here.
const (
	ModeSoft      = "soft"      // pure software: OPENSSL_armcap=0 (OPENSSL_ia32cap mask on x86)
	ModeCPU       = "cpu"       // OpenSSL's default CPU path: NEON, ARMv8 crypto extensions, AES-NI
	ModeDevCrypto = "devcrypto" // -engine devcrypto (1.1+) or cryptodev (1.0.x): /dev/crypto
	ModeAFALG     = "afalg"     // -engine afalg: the kernel crypto API through OpenSSL
	ModeKCAPI     = "kcapi"     // the agent's own AF_ALG benchmark, no OpenSSL engine needed
	ModeSSH       = "ssh"       // the controller streams data through the board's SSH server, per cipher (ssh.go)

	// ModeReferenceAccelerator is no mode a board is measured in: it is the mode of a vendor's "Accelerator"
	// column in a published table (fleet import --reference), a hardware engine reached through an interface the
	// vendor did not name. Comparisons put it beside every accelerated mode measured.
	ModeReferenceAccelerator = "accelerator"

	EnginePrefix   = "engine:"   // engine:NAME, a vendor engine from boards.toml
	ProviderPrefix = "provider:" // provider:NAME, an OpenSSL 3 provider from boards.toml
)

// StandardModes are the modes every probe reports on, in the order tables show them.
var StandardModes = []string{ModeSoft, ModeCPU, ModeDevCrypto, ModeAFALG, ModeKCAPI}

// IsAccelerated reports whether a mode measures something other than the CPU's own instructions: every mode but
// soft, cpu and ssh (which measures a protocol, whatever served its cipher, and has tables of its own), and but
// kcapi:DRIVER where DRIVER is one of the kernel's CPU implementations (cbc-aes-ce, cbc(aes-generic)): those are
// the CPU seen through AF_ALG, not an accelerator. Plain kcapi, whatever the kernel picks, stays an accelerated
// mode, as afalg does.
func IsAccelerated(mode string) bool {
	if d, ok := KCAPIDriver(mode); ok {
		return !IsCPUDriver(d)
	}
	return mode != ModeSoft && mode != ModeCPU && mode != ModeSSH
}
