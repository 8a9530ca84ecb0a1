package timeserver

import "encoding/binary"

// Layout of a control message on 64-bit Linux: struct cmsghdr is
// {len uint64, level int32, type int32}, data is aligned to 8 bytes, and
// SO_TIMESTAMPNS carries a struct timespec {sec int64, nsec int64}.
const (
	cmsgHeaderLen = 16
	cmsgAlign     = 8
	timespecLen   = 16
	// oobSize holds an SO_TIMESTAMPNS message (32 bytes) and a UDP_GRO
	// one (24 bytes), with room to spare.
	oobSize = 128
)

// kernelStamp returns the kernel receive time (Unix ns) carried by an
// SO_TIMESTAMPNS control message in oob, without allocating. ok is false
// when there is none, or when this platform does not provide them.
func kernelStamp(oob []byte) (ns int64, ok bool) {
	if !haveKernelStamps {
		return 0, false
	}
	ts, ok := cmsgData(oob, solSocket, scmTimestampNS, timespecLen)
	if !ok {
		return 0, false
	}
	sec := int64(binary.NativeEndian.Uint64(ts))
	nsec := int64(binary.NativeEndian.Uint64(ts[8:]))
	return sec*1e9 + nsec, true
}

// cmsgData returns the data of the first control message in oob of the
// given level and type that holds at least size bytes, without
// allocating. ok is false when there is none or oob is malformed.
func cmsgData(oob []byte, level, typ int32, size int) (data []byte, ok bool) {
	for len(oob) >= cmsgHeaderLen {
		n := binary.NativeEndian.Uint64(oob)
		lv := int32(binary.NativeEndian.Uint32(oob[8:]))
		ty := int32(binary.NativeEndian.Uint32(oob[12:]))
		if n < cmsgHeaderLen || n > uint64(len(oob)) {
			return nil, false
		}
		if lv == level && ty == typ && n >= uint64(cmsgHeaderLen+size) {
			return oob[cmsgHeaderLen:n], true
		}
		step := (n + cmsgAlign - 1) &^ (cmsgAlign - 1)
		if step >= uint64(len(oob)) {
			return nil, false
		}
		oob = oob[step:]
	}
	return nil, false
}
