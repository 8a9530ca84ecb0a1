package netlab

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The few constants of the kernel's nfnetlink_queue interface
// (include/uapi/linux/netfilter/nfnetlink_queue.h) this package uses.
const (
	nfnlSubsysQueue  = 3
	nfqnlMsgPacket   = 0
	nfqnlMsgVerdict  = 1
	nfqnlMsgConfig   = 2
	nfqaPacketHdr    = 1
	nfqaVerdictHdr   = 2
	nfqaPayload      = 10
	nfqaCfgCmd       = 1
	nfqaCfgParams    = 2
	nfqaCfgQueueMax  = 3
	nfqaCfgMask      = 4
	nfqaCfgFlags     = 5
	nfqnlCfgCmdBind  = 1
	nfqnlCopyPacket  = 2
	nfqaCfgFlagGSO   = 1 << 2
	nfAccept         = 1
	nlaTypeMask      = 0x3fff
	nfgenHeaderBytes = 4
	// copyBytes is how much of each packet the kernel hands over: the IPv4
	// header, for the source address.
	copyBytes = 20
	// queueMaxLen bounds the packets held in one queue (netem's limit is 1000).
	queueMaxLen = 32768
)

// nfPacket is one queued packet: its kernel id and the head of its payload.
type nfPacket struct {
	id      uint32
	payload []byte
}

// nfQueue is a netlink socket bound to one NFQUEUE queue number in one
// network namespace.
type nfQueue struct {
	f      *os.File
	num    uint16
	closed atomic.Bool
}

// openNFQueue binds queue num in the network namespace whose handle is the
// file nsPath ("" for the caller's own namespace). The socket stays in that
// namespace after the thread returns to its own.
func openNFQueue(nsPath string, num uint16) (*nfQueue, error) {
	fd, err := socketIn(nsPath)
	if err != nil {
		return nil, err
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 8<<20)
	_ = unix.SetsockoptInt(fd, unix.SOL_NETLINK, unix.NETLINK_NO_ENOBUFS, 1)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netlab: binding a netfilter netlink socket: %w", err)
	}
	q := &nfQueue{num: num}
	for _, m := range [][]byte{
		configMsg(num, attr(nfqaCfgCmd, []byte{nfqnlCfgCmdBind, 0, 0, unix.AF_INET})),
		configMsg(num, attr(nfqaCfgParams, append(be32(copyBytes), nfqnlCopyPacket))),
		configMsg(num, attr(nfqaCfgQueueMax, be32(queueMaxLen))),
		configMsg(num, append(attr(nfqaCfgFlags, be32(nfqaCfgFlagGSO)), attr(nfqaCfgMask, be32(nfqaCfgFlagGSO))...)),
	} {
		if err := request(fd, m); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("netlab: configuring NFQUEUE %d: %w", num, err)
		}
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netlab: nfqueue socket: %w", err)
	}
	q.f = os.NewFile(uintptr(fd), fmt.Sprintf("nfqueue-%d", num))
	return q, nil
}

// socketIn opens a NETLINK_NETFILTER socket inside the namespace nsPath.
func socketIn(nsPath string) (int, error) {
	open := func() (int, error) {
		fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_NETFILTER)
		if err != nil {
			return -1, fmt.Errorf("netlab: netfilter netlink socket: %w", err)
		}
		return fd, nil
	}
	if nsPath == "" {
		return open()
	}
	target, err := unix.Open(nsPath, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("netlab: opening namespace %s: %w", nsPath, err)
	}
	defer unix.Close(target)
	runtime.LockOSThread()
	home, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		runtime.UnlockOSThread()
		return -1, fmt.Errorf("netlab: opening own namespace: %w", err)
	}
	defer unix.Close(home)
	if err := unix.Setns(target, unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return -1, fmt.Errorf("netlab: entering namespace %s: %w", nsPath, err)
	}
	fd, err := open()
	if unix.Setns(home, unix.CLONE_NEWNET) == nil {
		runtime.UnlockOSThread() // else the thread dies with its goroutine, never reused
	}
	return fd, err
}

// request sends one message asking for an acknowledgement and waits for it.
func request(fd int, msg []byte) error {
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return err
		}
		for m := buf[:n]; len(m) >= unix.NLMSG_HDRLEN; {
			l := int(binary.NativeEndian.Uint32(m))
			if l < unix.NLMSG_HDRLEN || l > len(m) {
				return errors.New("truncated netlink answer")
			}
			if binary.NativeEndian.Uint16(m[4:]) == unix.NLMSG_ERROR && l >= unix.NLMSG_HDRLEN+4 {
				if code := int32(binary.NativeEndian.Uint32(m[unix.NLMSG_HDRLEN:])); code != 0 {
					return unix.Errno(-code)
				}
				return nil
			}
			m = m[nlAlign(l):]
		}
	}
}

// read blocks for the next batch of queued packets, appending them to into.
func (q *nfQueue) read(buf []byte, into []nfPacket) ([]nfPacket, error) {
	rc, err := q.f.SyscallConn()
	if err != nil {
		return into, err
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr = unix.Recvfrom(int(fd), buf, 0)
		return rerr != unix.EAGAIN
	})
	if q.closed.Load() {
		return into, os.ErrClosed
	}
	if err != nil {
		return into, err
	}
	if rerr != nil {
		return into, rerr
	}
	return parsePackets(buf[:n], into), nil
}

// accept lets the packets with the given ids go on, in one send.
func (q *nfQueue) accept(ids []uint32) error {
	var msg []byte
	for _, id := range ids {
		body := append(be32(nfAccept), be32(id)...)
		msg = append(msg, nlMsg(nfnlSubsysQueue<<8|nfqnlMsgVerdict, unix.NLM_F_REQUEST, q.num, attr(nfqaVerdictHdr, body))...)
	}
	rc, err := q.f.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		werr = unix.Sendto(int(fd), msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
		return werr != unix.EAGAIN
	})
	if err != nil {
		return err
	}
	return werr
}

// close releases the socket; the kernel drops what it still held for it.
func (q *nfQueue) close() error {
	q.closed.Store(true)
	return q.f.Close()
}

// parsePackets decodes the NFQNL_MSG_PACKET messages in one netlink read and
// appends them to into; anything else (or anything malformed) is skipped.
func parsePackets(b []byte, into []nfPacket) []nfPacket {
	for len(b) >= unix.NLMSG_HDRLEN {
		l := int(binary.NativeEndian.Uint32(b))
		if l < unix.NLMSG_HDRLEN || l > len(b) {
			return into
		}
		typ := binary.NativeEndian.Uint16(b[4:])
		if typ == nfnlSubsysQueue<<8|nfqnlMsgPacket && l >= unix.NLMSG_HDRLEN+nfgenHeaderBytes {
			if p, ok := parsePacket(b[unix.NLMSG_HDRLEN+nfgenHeaderBytes : l]); ok {
				into = append(into, p)
			}
		}
		b = b[min(nlAlign(l), len(b)):]
	}
	return into
}

// parsePacket reads the attributes of one queued packet.
func parsePacket(attrs []byte) (nfPacket, bool) {
	var p nfPacket
	found := false
	for len(attrs) >= 4 {
		l := int(binary.NativeEndian.Uint16(attrs))
		if l < 4 || l > len(attrs) {
			break
		}
		val := attrs[4:l]
		switch binary.NativeEndian.Uint16(attrs[2:]) & nlaTypeMask {
		case nfqaPacketHdr:
			if len(val) >= 4 {
				p.id, found = binary.BigEndian.Uint32(val), true
			}
		case nfqaPayload:
			p.payload = val
		}
		attrs = attrs[min(nlAlign(l), len(attrs)):]
	}
	return p, found
}

func configMsg(num uint16, attrs []byte) []byte {
	return nlMsg(nfnlSubsysQueue<<8|nfqnlMsgConfig, unix.NLM_F_REQUEST|unix.NLM_F_ACK, num, attrs)
}

// nlMsg frames an nfnetlink message for queue num.
func nlMsg(typ, flags, num uint16, attrs []byte) []byte {
	l := unix.NLMSG_HDRLEN + nfgenHeaderBytes + len(attrs)
	b := make([]byte, unix.NLMSG_HDRLEN, l)
	binary.NativeEndian.PutUint32(b, uint32(l))
	binary.NativeEndian.PutUint16(b[4:], typ)
	binary.NativeEndian.PutUint16(b[6:], flags)
	b = append(b, unix.AF_UNSPEC, 0, byte(num>>8), byte(num))
	return append(b, attrs...)
}

// attr frames one netlink attribute, padded to 4 bytes.
func attr(typ uint16, val []byte) []byte {
	b := make([]byte, 4, nlAlign(4+len(val)))
	binary.NativeEndian.PutUint16(b, uint16(4+len(val)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	b = append(b, val...)
	return b[:cap(b)]
}

func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func nlAlign(n int) int { return (n + 3) &^ 3 }
