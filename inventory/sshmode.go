package inventory

import (
	"fmt"
	"slices"
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
