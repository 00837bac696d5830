package inventory

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fleetlab/fleet/opensslspeed"
	"github.com/fleetlab/fleet/protocol"
)

// Mode ssh takes SSH cipher names (aes128-ctr, aes128-gcm@openssh.com, …) where the other modes take
// openssl algorithms: the two kinds may stand in one list, each going to its modes.

// checkSSHCipherName is checkAlgorithm's answer for a name only an SSH cipher could have ('@' or '.'): known
// ciphers pass, others are refused with the closest known ones.
func checkSSHCipherName(a string) (msg string, sshLike bool) {
	if !strings.ContainsAny(a, "@.") {
		return "", false
	}
	if protocol.IsSSHCipher(a) {
		return "", true
	}
	return unknownCipher(a), true
}

func unknownCipher(a string) string {
	return fmt.Sprintf("unknown SSH cipher %q%s (mode ssh knows %s)", a, cipherDidYouMean(a),
		strings.Join(protocol.SSHCiphers, ", "))
}

// cipherDidYouMean compares the whole name, else the part before '@' ("aes256-gcm@openssh.org" is three edits
// from its cipher, but its name part is exact).
func cipherDidYouMean(a string) string {
	if s := didYouMean(a, protocol.SSHCiphers); s != "" {
		return s
	}
	name, _, ok := strings.Cut(a, "@")
	if !ok {
		return ""
	}
	var matches []string
	for _, c := range protocol.SSHCiphers {
		if cn, _, _ := strings.Cut(c, "@"); opensslspeed.EditDistance(name, cn) <= 1 {
			matches = append(matches, c)
		}
	}
	if len(matches) == 0 {
		return ""
	}
	return ": did you mean " + quoteOr(matches) + "?"
}

// OnlySSH reports whether modes name mode ssh and nothing else.
func OnlySSH(modes []string) bool {
	return len(modes) > 0 && !slices.ContainsFunc(modes, func(m string) bool { return m != protocol.ModeSSH })
}

// CheckSSHCiphers refuses, for a sweep whose modes are ssh alone, an algorithm that is not an SSH cipher, with
// the closest cipher names ("aes-128-ctr" → aes128-ctr): such a sweep would measure nothing of it.
func CheckSSHCiphers(algorithms, modes []string) error {
	if !OnlySSH(modes) {
		return nil
	}
	for _, a := range algorithms {
		if !protocol.IsSSHCipher(a) {
			return fmt.Errorf("%s", unknownCipher(a))
		}
	}
	return nil
}

// CheckTransferSize is the range of mode ssh's bytes per transfer.
func CheckTransferSize(n int64) error {
	if n < protocol.MinSSHTransferBytes || n > protocol.MaxSSHTransferBytes {
		return fmt.Errorf("%d bytes per transfer is out of range (mode ssh moves %d (1 MiB) to %d (1 GiB) bytes per transfer; default %d, 64 MiB)",
			n, protocol.MinSSHTransferBytes, protocol.MaxSSHTransferBytes, protocol.DefaultSSHTransferBytes)
	}
	return nil
}

// SweepFlags is what a command line (or any other front end) says of a sweep's modes, algorithms and sizes:
// each list as given, split at commas, and whether the modes were given at all (an SSH cipher among the
// algorithms of a profile's modes is refused only when the modes were chosen on purpose).
type SweepFlags struct {
	Modes, Algorithms, Sizes []string
	ModesGiven               bool
}

// ApplySSHFlags reads what f says of mode ssh and adjusts p, whose modes and algorithms already are f's where
// f gives them:
//   - modes ssh alone: the algorithms must be SSH ciphers (did-you-mean otherwise), and without algorithms the
//     profile's (openssl's, for its other modes) are replaced by the default ciphers; the sizes are bytes per
//     transfer (1 MiB to 1 GiB), returned, and p keeps its block sizes (no openssl mode uses them);
//   - modes mixing ssh with openssl modes: the sizes would mean block sizes and transfer sizes at once, so they
//     are refused; mode ssh moves protocol.DefaultSSHTransferBytes;
//   - an SSH cipher among the algorithms without mode ssh among the modes given measures nothing: refused.
//
// It returns the transfer sizes (nil: the default) and whether f.Sizes was consumed as such. Its errors name
// the flags --modes, --algorithms and --sizes, which every front end takes by those names.
func ApplySSHFlags(p *Profile, f SweepFlags) (transfer []int, consumed bool, err error) {
	hasSSH := slices.Contains(f.Modes, protocol.ModeSSH)
	if f.ModesGiven && !hasSSH {
		for _, a := range f.Algorithms {
			if protocol.IsSSHCipher(a) {
				return nil, false, fmt.Errorf("--algorithms %s is an SSH cipher: add mode ssh to --modes (e.g. --modes ssh) to measure it", a)
			}
		}
	}
	if !hasSSH {
		return nil, false, nil
	}
	only := OnlySSH(f.Modes)
	if only {
		if len(f.Algorithms) == 0 {
			p.Algorithms = protocol.SSHCiphersOf(nil) // the profile's algorithms are for its openssl modes
		} else if err := CheckSSHCiphers(f.Algorithms, f.Modes); err != nil {
			return nil, false, fmt.Errorf("--algorithms: %w", err)
		}
	} else if len(f.Algorithms) > 0 && !slices.ContainsFunc(f.Algorithms, func(a string) bool { return !protocol.IsSSHCipher(a) }) {
		return nil, false, fmt.Errorf("--algorithms %s: only SSH ciphers, but --modes also names openssl modes, which would measure nothing: add an openssl algorithm such as aes-128-ctr, or use --modes ssh alone", f.Algorithms)
	}
	if len(f.Sizes) == 0 {
		return nil, false, nil
	}
	if !only {
		return nil, false, fmt.Errorf("--sizes with --modes mixing ssh and openssl modes: it would be block sizes for the ones and bytes per transfer for the other; run --modes ssh on its own to set its transfer size (default %d, 64 MiB)", protocol.DefaultSSHTransferBytes)
	}
	for _, s := range f.Sizes {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("--sizes: %q is not a number of bytes per transfer (mode ssh: 1048576 to 1073741824)", s)
		}
		if err := CheckTransferSize(n); err != nil {
			return nil, false, fmt.Errorf("--sizes: %w", err)
		}
		if slices.Contains(transfer, int(n)) {
			return nil, false, fmt.Errorf("--sizes: %d is listed twice", n)
		}
		transfer = append(transfer, int(n))
	}
	return transfer, true, nil
}
