package protocol

import "fmt"

// TimeKeySize is the size of TestDesc.TimeKey.
const TimeKeySize = 32

// validateTimeKey checks the tester's time key: none, or a key of
// TimeKeySize bytes with an id other than 0.
func (d *TestDesc) validateTimeKey() error {
	switch {
	case len(d.TimeKey) == 0 && d.TimeKeyID == 0:
		return nil
	case len(d.TimeKey) != TimeKeySize || d.TimeKeyID == 0:
		return fmt.Errorf("testdesc: time key %d of %d bytes: want an id other than 0 and %d bytes", d.TimeKeyID, len(d.TimeKey), TimeKeySize)
	}
	return nil
}
