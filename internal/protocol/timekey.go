package protocol

import (
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
)

// labelTime labels the derivation of a tester's time key.
const labelTime = "diperf-time-v1 clock sync key"

// TimeKeySize is the size of a time key.
const TimeKeySize = 32

// TimeKey returns the time key named id of the session whose keys are k
// (either side's: both get the same key): HKDF-Expand of the session's
// controller→tester key with labelTime and id as info. The key never
// crosses the wire; the TestDesc names it (TimeKeyID). The TCP frames'
// MAC uses that key as an HMAC key over inputs starting with the
// direction byte 'T'; HKDF-Expand's input here starts with the label's
// 'd': the two uses never MAC the same message.
func (k Keys) TimeKey(id uint32) []byte {
	base := k.Recv // the tester's
	if k.sendDir == dirToTester {
		base = k.Send // the controller's
	}
	info := binary.BigEndian.AppendUint32([]byte(labelTime), id)
	key, err := hkdf.Expand(sha256.New, base, string(info), TimeKeySize)
	if err != nil {
		panic("protocol: hkdf: " + err.Error()) // only for lengths past 255 hashes
	}
	return key
}
