//go:build !linux

package tester

import "time"

// preciseSleep sleeps until remaining() reaches zero and returns now().
func preciseSleep(remaining func() time.Duration, now func() int64) int64 {
	for d := remaining(); d > 0; d = remaining() {
		time.Sleep(d)
	}
	return now()
}
