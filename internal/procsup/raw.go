//go:build linux

package procsup

import (
	"syscall"
	"unsafe"
)

// Raw system calls for the calls that do not block (or barely: wait4 on a
// process that has exited or was just killed). syscall.Syscall tells the Go
// scheduler about each one, and each return wakes its monitor thread, which
// then polls every 20 µs for a millisecond: a fifth of the supervisor's CPU
// per call. The waits that do block (poll, the vfork) keep the scheduler
// informed, so an idle supervisor sleeps without wake-ups.

func rawKill(pid int, sig syscall.Signal) {
	syscall.RawSyscall(syscall.SYS_KILL, uintptr(pid), uintptr(sig), 0)
}

func rawClose(fd int) {
	syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0)
}

func rawWait4(pid int, ws *syscall.WaitStatus, options int) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_WAIT4, uintptr(pid), uintptr(unsafe.Pointer(ws)), uintptr(options), 0, 0, 0)
	return int(r), e
}

func rawSend(fd int, b []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), syscall.MSG_NOSIGNAL, 0, 0)
	return int(r), e
}

// rawRecvmsg reads data and control messages (received fds close-on-exec).
func rawRecvmsg(fd int, p, oob []byte) (n, oobn int, e syscall.Errno) {
	iov := syscall.Iovec{Base: &p[0]}
	iov.SetLen(len(p))
	msg := syscall.Msghdr{Iov: &iov, Iovlen: 1, Control: &oob[0]}
	msg.SetControllen(len(oob))
	r, _, e := syscall.RawSyscall(syscall.SYS_RECVMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), msgCmsgCloexec)
	return int(r), int(msg.Controllen), e
}

const msgCmsgCloexec = 0x40000000 // MSG_CMSG_CLOEXEC
