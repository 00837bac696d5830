//go:build !unix

package fleet

import "time"

// processCPU is unknown where getrusage is missing.
func processCPU() time.Duration { return -1 }
