package timeserver

import "encoding/binary"

// Layout of a control message on 64-bit Linux: struct cmsghdr is
// {len uint64, level int32, type int32}, data is aligned to 8 bytes, and
// SO_TIMESTAMPNS carries a struct timespec {sec int64, nsec int64}.
const (
	cmsgHeaderLen = 16
	cmsgAlign     = 8
	timespecLen   = 16
	// oobSize holds one SO_TIMESTAMPNS message with room to spare.
	oobSize = 64
)

// kernelStamp returns the kernel receive time (Unix ns) carried by an
// SO_TIMESTAMPNS control message in oob, without allocating. ok is false
// when there is none, or when this platform does not provide them.
func kernelStamp(oob []byte) (ns int64, ok bool) {
	if !haveKernelStamps {
		return 0, false
	}
	for len(oob) >= cmsgHeaderLen {
		n := binary.NativeEndian.Uint64(oob)
		level := int32(binary.NativeEndian.Uint32(oob[8:]))
		typ := int32(binary.NativeEndian.Uint32(oob[12:]))
		if n < cmsgHeaderLen || n > uint64(len(oob)) {
			return 0, false
		}
		if level == solSocket && typ == scmTimestampNS && n >= cmsgHeaderLen+timespecLen {
			sec := int64(binary.NativeEndian.Uint64(oob[16:]))
			nsec := int64(binary.NativeEndian.Uint64(oob[24:]))
			return sec*1e9 + nsec, true
		}
		step := (n + cmsgAlign - 1) &^ (cmsgAlign - 1)
		if step >= uint64(len(oob)) {
			return 0, false
		}
		oob = oob[step:]
	}
	return 0, false
}
