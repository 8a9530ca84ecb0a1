//go:build !linux

package tester

import "time"

// preciseSleep sleeps until remaining() reaches zero.
func preciseSleep(remaining func() time.Duration) {
	for d := remaining(); d > 0; d = remaining() {
		time.Sleep(d)
	}
}
