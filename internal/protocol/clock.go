package protocol

import (
	"encoding/binary"
	"fmt"
)

// SyncReq is a clock probe: T1 is the tester's local send time.
type SyncReq struct{ T1 int64 }

// SyncResp answers a probe: T2 and T3 are the controller's global receive
// and send times.
type SyncResp struct{ T1, T2, T3 int64 }

// AppendSyncReq encodes a probe.
func AppendSyncReq(dst []byte, r SyncReq) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(r.T1))
}

// DecodeSyncReq decodes a probe.
func DecodeSyncReq(p []byte) (SyncReq, error) {
	if len(p) != 8 {
		return SyncReq{}, fmt.Errorf("protocol: sync request of %d bytes, want 8", len(p))
	}
	return SyncReq{T1: int64(binary.BigEndian.Uint64(p))}, nil
}

// AppendSyncResp encodes a reply.
func AppendSyncResp(dst []byte, r SyncResp) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.T1))
	dst = binary.BigEndian.AppendUint64(dst, uint64(r.T2))
	return binary.BigEndian.AppendUint64(dst, uint64(r.T3))
}

// DecodeSyncResp decodes a reply.
func DecodeSyncResp(p []byte) (SyncResp, error) {
	if len(p) != 24 {
		return SyncResp{}, fmt.Errorf("protocol: sync reply of %d bytes, want 24", len(p))
	}
	return SyncResp{
		T1: int64(binary.BigEndian.Uint64(p[0:])),
		T2: int64(binary.BigEndian.Uint64(p[8:])),
		T3: int64(binary.BigEndian.Uint64(p[16:])),
	}, nil
}
