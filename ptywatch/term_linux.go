//go:build linux

package ptywatch

import (
	"os"
	"syscall"
	"unsafe"
)

// eofChar is the end-of-file character (c_cc[VEOF]) of the terminal whose
// master is f: on Linux the master's termios calls act on its slave.
func eofChar(master *os.File) byte {
	var t syscall.Termios
	if ioctl(master, syscall.TCGETS, unsafe.Pointer(&t)) != nil || t.Cc[syscall.VEOF] == 0 {
		return ctrlD // 0 is _POSIX_VDISABLE; ^D is everyone's default
	}
	return t.Cc[syscall.VEOF]
}

// inputPending is how many bytes of input the program on slave has yet to read
// (in canonical mode, of whole lines); ok is false when that cannot be told.
func inputPending(slave *os.File) (n int, ok bool) {
	var v int32
	if ioctl(slave, syscall.TIOCINQ, unsafe.Pointer(&v)) != nil {
		return 0, false
	}
	return int(v), true
}

// ioctl runs one ioctl on f through its RawConn, which, unlike f.Fd(), leaves f
// non-blocking so that a Read elsewhere still ends when f is closed.
func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}
