package agent

import (
	"fmt"
	"strings"
)

// sweepSpeedArgs maps a plan algorithm to openssl speed arguments.
// TEMPORARY until the parser's SpeedArgs lands in speed*.go; then this calls it.
func sweepSpeedArgs(alg string) ([]string, bool, error) {
	switch {
	case alg == "":
		return nil, false, fmt.Errorf("speed args: empty algorithm")
	case strings.HasPrefix(alg, "rsa"), strings.HasPrefix(alg, "dsa"), strings.HasPrefix(alg, "ecdsa"),
		strings.HasPrefix(alg, "ecdh"), alg == "ed25519", alg == "ed448":
		return []string{alg}, true, nil
	}
	return []string{"-evp", alg}, false, nil
}
