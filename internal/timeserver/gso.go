package timeserver

import "encoding/binary"

// Generic segmentation offload for UDP (Linux): with UDP_GRO set, one read
// may return several datagrams from the same source coalesced, all of one
// segment size but the last, which may be shorter; with UDP_SEGMENT, one
// send carries several datagrams that the kernel cuts apart. On loopback
// such a batch crosses the network stack once instead of once per datagram.

// maxGSOSegments is the most datagrams one segmented send carries: the
// kernel's UDP_MAX_SEGMENTS, 64 on the oldest kernels that have it.
const maxGSOSegments = 64

// segmentCmsgLen is the size of a UDP_SEGMENT control message: a header
// and a uint16, padded to the alignment.
const segmentCmsgLen = cmsgHeaderLen + cmsgAlign

// groSegmentSize returns the segment size carried by a UDP_GRO control
// message in oob, without allocating. ok is false when there is none (the
// read holds one datagram) or the size is not positive.
func groSegmentSize(oob []byte) (size int, ok bool) {
	if !haveSegmentation {
		return 0, false
	}
	d, ok := cmsgData(oob, solUDP, udpGRO, 4)
	if !ok {
		return 0, false
	}
	if size = int(int32(binary.NativeEndian.Uint32(d))); size <= 0 {
		return 0, false
	}
	return size, true
}

// segmentCmsg returns a UDP_SEGMENT control message asking the kernel to
// cut a send into datagrams of size bytes.
func segmentCmsg(size uint16) []byte {
	b := make([]byte, segmentCmsgLen)
	binary.NativeEndian.PutUint64(b, cmsgHeaderLen+2)
	level, typ := int32(solUDP), int32(udpSegment)
	binary.NativeEndian.PutUint32(b[8:], uint32(level))
	binary.NativeEndian.PutUint32(b[12:], uint32(typ))
	binary.NativeEndian.PutUint16(b[cmsgHeaderLen:], size)
	return b
}

// segmentOf returns the size of the segments of a read of n bytes whose
// control messages are oob: the UDP_GRO segment size when the kernel
// coalesced datagrams, else n (one datagram), and at least 1.
func segmentOf(n int, oob []byte) int {
	if size, ok := groSegmentSize(oob); ok {
		return size
	}
	return max(n, 1)
}

// segmentCount returns how many segments of size seg a read of n bytes
// holds; an empty read counts as one (empty) datagram.
func segmentCount(n, seg int) int { return max(1, (n+seg-1)/seg) }
