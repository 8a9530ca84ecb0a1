//go:build !linux

package netsim

import "time"

// sleepPrecise reports false: without a precise sleep the caller spins.
func sleepPrecise(time.Duration) bool { return false }
