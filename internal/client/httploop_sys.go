//go:build linux

package client

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The event loop's sockets are non-blocking, so their reads and writes
// never block: they go through RawSyscall, without the runtime's
// bookkeeping for a system call that might block.

// rawRead reads from a non-blocking fd.
func rawRead(fd int, b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// rawWrite writes to a non-blocking fd.
func rawWrite(fd int, b []byte) (int, error) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// noPwait2 is set once epoll_pwait2 (Linux 5.11) turned out missing.
var noPwait2 atomic.Bool

// wait waits at most ns for events: with epoll_pwait2, whose timeout is
// in ns, or else epoll_wait, rounded up to the next ms.
//
// With a spare P (GOMAXPROCS > 1) the wait is a raw system call: the
// runtime does not hand the loop's P to another thread for it, and its
// monitor thread, which polls a P stuck in a system call every 20 µs or
// so, stays asleep; the loop's thread is locked to it anyway. A signal
// (preemption, the garbage collector's stop) ends the wait with EINTR.
func (l *loop) wait(evs []unix.EpollEvent, ns int64) (int, error) {
	if !noPwait2.Load() {
		l.ts = unix.NsecToTimespec(ns)
		call := unix.Syscall6
		if l.rawWait {
			call = unix.RawSyscall6
		}
		n, _, e := call(unix.SYS_EPOLL_PWAIT2, uintptr(l.ep), uintptr(unsafe.Pointer(unsafe.SliceData(evs))),
			uintptr(len(evs)), uintptr(unsafe.Pointer(&l.ts)), 0, 0)
		if e == 0 {
			return int(n), nil
		}
		if e != unix.ENOSYS {
			return -1, e
		}
		noPwait2.Store(true)
	}
	return unix.EpollWait(l.ep, evs, int((ns+999_999)/1_000_000))
}

// rxBuf is a loop's recvmsg header, its one iovec and room for the
// receive timestamp's control message, set up once.
type rxBuf struct {
	oob [64]byte // first: aligned as the control messages need
	msg unix.Msghdr
	iov unix.Iovec
}

// rawRecvTS reads from a non-blocking fd into b, like rawRead, and also
// returns the kernel's receive time of the last segment read (wall clock,
// Unix ns; 0 when the kernel gave none): SO_TIMESTAMPNS must be set.
func (x *rxBuf) rawRecvTS(fd int, b []byte) (int, int64, error) {
	x.iov.Base = unsafe.SliceData(b)
	x.iov.SetLen(len(b))
	x.msg.Iov, x.msg.Iovlen = &x.iov, 1
	x.msg.Control = &x.oob[0]
	x.msg.SetControllen(len(x.oob))
	n, _, e := unix.RawSyscall(unix.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&x.msg)), 0)
	if e != 0 {
		return -1, 0, e
	}
	return int(n), x.stamp(), nil
}

// stamp finds SCM_TIMESTAMPNS among the control messages received.
func (x *rxBuf) stamp() int64 {
	oob := x.oob[:min(int(x.msg.Controllen), len(x.oob))]
	for len(oob) >= unix.SizeofCmsghdr {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < unix.SizeofCmsghdr || l > len(oob) {
			return 0
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && l >= unix.CmsgLen(int(unsafe.Sizeof(unix.Timespec{}))) {
			ts := (*unix.Timespec)(unsafe.Pointer(&oob[unix.CmsgLen(0)]))
			return ts.Nano()
		}
		oob = oob[min(unix.CmsgSpace(l-unix.CmsgLen(0)), len(oob)):]
	}
	return 0
}
