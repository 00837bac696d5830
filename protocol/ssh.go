package protocol

import (
	"fmt"
	"math"
	"slices"
)

// Mode ssh is not measured by the agent's sweep: the controller opens a fresh SSH connection to the
// board per cipher and streams data through it, while the agent only counts bytes and samples /proc/stat on the
// board. It is not in StandardModes, so a run measures it only when --modes, a profile or the board names it: it
// moves 2 × 64 MiB per cipher and repeat over the board's link.

// SSH ciphers mode ssh knows: those golang.org/x/crypto/ssh (the controller's SSH client) implements and
// OpenSSH offers by default, in the order tables show them. Points carry these names as their algorithm.
const (
	CipherAES128CTR        = "aes128-ctr"
	CipherAES192CTR        = "aes192-ctr"
	CipherAES256CTR        = "aes256-ctr"
	CipherAES128GCM        = "aes128-gcm@openssh.com"
	CipherAES256GCM        = "aes256-gcm@openssh.com"
	CipherChaCha20Poly1305 = "chacha20-poly1305@openssh.com"
)

// SSHCiphers are the cipher names --algorithms accepts for mode ssh.
var SSHCiphers = []string{CipherAES128CTR, CipherAES192CTR, CipherAES256CTR, CipherAES128GCM, CipherAES256GCM,
	CipherChaCha20Poly1305}

// DefaultSSHCiphers are measured when no SSH cipher is named.
var DefaultSSHCiphers = []string{CipherAES128CTR, CipherAES256CTR, CipherAES128GCM, CipherAES256GCM,
	CipherChaCha20Poly1305}

// DefaultSSHTransferBytes is how much one ssh point moves when --sizes does not say: 64 MiB, long enough on a
// board doing 10 MB/s (6 s) for the handshake-free timing to be steady, short enough for a run of five ciphers ×
// two directions.
const DefaultSSHTransferBytes = 64 << 20

// Bounds of an SSH transfer size: below 1 MiB the window's start-up and the round trip dominate; above 1 GiB a
// point on a slow board takes minutes.
const (
	MinSSHTransferBytes = 1 << 20
	MaxSSHTransferBytes = 1 << 30
)

// Operations of mode ssh: upload is controller → board (the board decrypts), download board → controller (the
// board encrypts).
const (
	OpUpload   = "upload"
	OpDownload = "download"
)

// Flags mode ssh puts on its points.
const (
	// FlagHostBound marks a point whose controller used at least HostBoundPct of one core: the controller, not
	// the board, may have set the speed.
	FlagHostBound = "host-bound"
	// FlagControllerCPU prefixes the controller's own CPU % over the transfer: "controller-cpu=37.2".
	FlagControllerCPU = "controller-cpu="
	// FlagSSHServer prefixes the server's version string: "ssh-server=SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3".
	FlagSSHServer = "ssh-server="
	// FlagProxyJump prefixes the jump hosts the transfer crossed: the whole chain was measured, not the board's
	// link alone: "proxy-jump=gw1,gw2".
	FlagProxyJump = "proxy-jump="
)

// HostBoundPct is the controller CPU % of one core from which a point is flagged host-bound.
const HostBoundPct = 90

// IsSSHCipher reports whether name is one of SSHCiphers.
func IsSSHCipher(name string) bool { return slices.Contains(SSHCiphers, name) }

// SSHCiphersOf is what mode ssh measures of a sweep's algorithms: the SSH ciphers among them, in their order, or
// all of DefaultSSHCiphers when they name none. The default is decided here alone, for the controller's plan and
// the command line's --modes ssh.
func SSHCiphersOf(algorithms []string) []string {
	var out []string
	for _, a := range algorithms {
		if IsSSHCipher(a) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return slices.Clone(DefaultSSHCiphers)
	}
	return out
}

// RawCipherOf is the openssl algorithm an SSH cipher uses, to compare its SSH throughput with the raw cipher's
// (cpu and devcrypto points of the same board); "" when there is none to compare with.
func RawCipherOf(cipher string) string {
	switch cipher {
	case CipherAES128CTR:
		return "aes-128-ctr"
	case CipherAES192CTR:
		return "aes-192-ctr"
	case CipherAES256CTR:
		return "aes-256-ctr"
	case CipherAES128GCM:
		return "aes-128-gcm"
	case CipherAES256GCM:
		return "aes-256-gcm"
	case CipherChaCha20Poly1305:
		return "chacha20-poly1305"
	}
	return ""
}

// Transfer is what the agent reports at the end of `fleet-agent ssh-sink` or `ssh-source`: the bytes it moved and
// the whole board's CPU over the transfer, from /proc/stat.
type Transfer struct {
	Bytes      int64   `json:"bytes"`
	WallS      float64 `json:"wall_s"`        // the agent's own clock, first to last byte
	BusyTicks  uint64  `json:"busy_ticks"`    // user, nice, system, irq, softirq of every core (not idle, iowait, steal)
	TotalTicks uint64  `json:"total_ticks"`   // every core's ticks, busy or idle
	Cores      int     `json:"cores"`         // cpuN lines of /proc/stat
	BoardPct   float64 `json:"board_cpu_pct"` // BusyTicks/TotalTicks × Cores × 100: 100 = one core busy
	Error      string  `json:"error,omitempty"`
}

// Bounds of a transfer report: more cores than any board has, a transfer longer than a day.
const (
	MaxTransferCores   = 4096
	MaxTransferSeconds = 86400
)

// Validate rejects values no transfer can have.
func (t *Transfer) Validate() error {
	for _, v := range []float64{t.WallS, t.BoardPct} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("transfer report: bad value %v", v)
		}
	}
	if t.Bytes < 0 || t.Cores < 0 || t.Cores > MaxTransferCores || t.BusyTicks > t.TotalTicks {
		return fmt.Errorf("transfer report: bytes %d, cores %d, busy %d of %d ticks", t.Bytes, t.Cores, t.BusyTicks, t.TotalTicks)
	}
	// BoardPct is BusyTicks/TotalTicks × Cores × 100, so it cannot exceed 100 % per core (a little slack for
	// rounding); a report that says more is not from our agent and must not reach the tables.
	if t.BoardPct > 100*float64(max(t.Cores, 1))*1.001 {
		return fmt.Errorf("transfer report: board CPU %v %% with %d cores", t.BoardPct, t.Cores)
	}
	if t.WallS > MaxTransferSeconds {
		return fmt.Errorf("transfer report: %v s is longer than any transfer (at most %d s)", t.WallS, MaxTransferSeconds)
	}
	return nil
}
