package protocol

import "slices"

// The standard modes. A mode names how a point was measured; every point and skip carries one.
//
// Adding a mode touches these places, and TestEveryModeHasAnEntry (with the agent's and opensslspeed's tests of
// the table) fails until the first three are done:
//  1. its constant here, and its entry in Modes below: its --modes help, its OpenSSL engines, whether every probe
//     reports on it, whether report treats it as an accelerator, whether the kernel crypto API does the work,
//     whether the shell path can measure it. StandardModes, IsAccelerated, inventory's mode check, the CLI's
//     --modes help, opensslspeed's engine→mode reading of captures and the agent's engine list follow from it.
//  2. the probe: when it is available (agent/probe_modes.go, a case in probeModes' switch).
//  3. the sweep: how to measure it, an openssl flag or environment (agent/sweep_argv.go, speedModeOptions) or a
//     runner of its own (agent/sweep_kcapi.go for kcapi, fleet/mode_ssh.go for ssh, which the controller measures).
//  4. verification: how its output is checked before it is measured (agent/verify.go; openssl modes share
//     agent/verify_openssl.go).
//  5. the shell path (fleet/shellpath.go, agent/remote.go): a mode it cannot measure says why.
//  6. report: a mode with tables of its own (as ssh's, report/ssh.go) and the compare view's split
//     (report/compare_view.go); an accelerated one gets speedups and crossovers from its entry alone.
//  7. the README's words on the modes (the list under "fleet run", and a section of its own for a new kind).
const (
	ModeSoft      = "soft"      // pure software: OPENSSL_armcap=0 (OPENSSL_ia32cap mask on x86)
	ModeCPU       = "cpu"       // OpenSSL's default CPU path: NEON, ARMv8 crypto extensions, AES-NI
	ModeDevCrypto = "devcrypto" // -engine devcrypto (1.1+) or cryptodev (1.0.x): /dev/crypto
	ModeAFALG     = "afalg"     // -engine afalg: the kernel crypto API through OpenSSL
	ModeKCAPI     = "kcapi"     // the agent's own AF_ALG benchmark, no OpenSSL engine needed
	ModeSSH       = "ssh"       // the controller streams data through the board's SSH server, per cipher (ssh.go)

	// ModeReferenceAccelerator is no mode a board is measured in: it is the mode of a vendor's "Accelerator"
	// column in a published table (fleet import --reference), a hardware engine reached through an interface the
	// vendor did not name. Comparisons put it beside every accelerated mode measured. It has no entry in Modes.
	ModeReferenceAccelerator = "accelerator"

	EnginePrefix   = "engine:"   // engine:NAME, a vendor engine from boards.toml
	ProviderPrefix = "provider:" // provider:NAME, an OpenSSL 3 provider from boards.toml
)

// ModeSpec is a mode's entry in Modes: what the parts of fleet that treat modes differently read of it.
type ModeSpec struct {
	Mode string
	// Help is what the --modes help says of the mode beside its name ("" for nothing).
	Help string
	// Engines are the OpenSSL engines that measure the mode: the name in OpenSSL 1.1 and later, then the name
	// of 1.0.x's third-party patch. None: the mode is not an engine.
	Engines []string
	// Probed: every probe reports on the mode, and a run measures it when nothing restricts the modes. Mode
	// ssh is measured only when named.
	Probed bool
	// Accelerated: the mode measures something other than the CPU's own instructions, so report gives it
	// speedups and crossovers (IsAccelerated).
	Accelerated bool
	// Kernel: the kernel crypto API does the work, and a point names the /proc/crypto driver it picked.
	Kernel bool
	// NeedsAgent says why the shell path (a board the agent cannot run on, measured with its own openssl) cannot
	// measure the mode; "" when it can.
	NeedsAgent string
}

// Modes has an entry for every mode a board is measured in, in the order tables show them.
var Modes = []ModeSpec{
	{Mode: ModeSoft, Probed: true},
	{Mode: ModeCPU, Probed: true},
	{Mode: ModeDevCrypto, Engines: []string{"devcrypto", "cryptodev"}, Probed: true, Accelerated: true, Kernel: true},
	{Mode: ModeAFALG, Engines: []string{"afalg", "af_alg"}, Probed: true, Accelerated: true, Kernel: true},
	{Mode: ModeKCAPI, Probed: true, Accelerated: true, Kernel: true, NeedsAgent: "its own AF_ALG benchmark"},
	{Mode: ModeSSH, Help: "SSH throughput per cipher, only when named", NeedsAgent: "its sink and source of the transfers"},
}

// LookupMode is the entry of mode in Modes; false for engine:NAME, provider:NAME, kcapi:DRIVER and the rest.
func LookupMode(mode string) (ModeSpec, bool) {
	for _, s := range Modes {
		if s.Mode == mode {
			return s, true
		}
	}
	return ModeSpec{}, false
}

// EngineMode is the mode an OpenSSL engine measures (devcrypto for cryptodev too), and false for an engine no
// entry of Modes names, which is mode engine:NAME.
func EngineMode(engine string) (string, bool) {
	for _, s := range Modes {
		for _, e := range s.Engines {
			if e == engine {
				return s.Mode, true
			}
		}
	}
	return "", false
}

// ModeEngines are the engines of every entry of Modes, each mode's in its order.
func ModeEngines() []string {
	var out []string
	for _, s := range Modes {
		out = append(out, s.Engines...)
	}
	return out
}

// StandardModes are the modes every probe reports on, in the order tables show them.
var StandardModes = probedModes()

func probedModes() []string {
	var out []string
	for _, s := range Modes {
		if s.Probed {
			out = append(out, s.Mode)
		}
	}
	return slices.Clip(out) // an append to StandardModes must not write into it
}

// IsAccelerated reports whether a mode measures something other than the CPU's own instructions: a mode of
// Modes as its entry says (all but soft, cpu and ssh, which measures a protocol, whatever served its cipher, and
// has tables of its own), every engine:NAME and provider:NAME, but not kcapi:DRIVER where DRIVER is one of the
// kernel's CPU implementations (cbc-aes-ce, cbc(aes-generic)): those are the CPU seen through AF_ALG, not an
// accelerator. Plain kcapi, whatever the kernel picks, stays an accelerated mode, as afalg does.
func IsAccelerated(mode string) bool {
	if d, ok := KCAPIDriver(mode); ok {
		return !IsCPUDriver(d)
	}
	if s, ok := LookupMode(mode); ok {
		return s.Accelerated
	}
	return true
}
