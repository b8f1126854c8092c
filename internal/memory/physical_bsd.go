//go:build darwin || ios || freebsd || netbsd || openbsd || dragonfly

package memory

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// Physical is the machine's memory in bytes, 0 when it cannot be
// told.
func Physical() int64 {
	name := "hw.physmem" // a 64-bit count on FreeBSD and DragonFly; OpenBSD's x/sys maps it to HW_PHYSMEM64
	switch runtime.GOOS {
	case "darwin", "ios":
		name = "hw.memsize"
	case "netbsd":
		name = "hw.physmem64" // hw.physmem is 32 bits there
	}
	n, err := unix.SysctlUint64(name)
	if err != nil {
		return 0
	}
	return int64(n)
}
