// Package agent is everything that runs on a board: the probe, the sweep runner, CPU accounting, /proc and /sys
// readers, and the kernel crypto API (AF_ALG) benchmark. It speaks the JSON-lines protocol of package protocol and
// reads `openssl speed` output with package opensslspeed.
//
// It is cross-compiled for ARMv5 upwards and imports only the standard library, golang.org/x/sys and those two
// leaves of this module (TestAgentDependencies keeps it so).
package agent
