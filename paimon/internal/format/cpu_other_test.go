//go:build !unix

package format

import "time"

// processCPU is unknown off unix: the CPU metric reads 0.
func processCPU() time.Duration { return 0 }
