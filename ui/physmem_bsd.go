//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package ui

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// physicalMemory is the machine's memory in bytes, 0 when it cannot be
// told.
func physicalMemory() int64 {
	name := "hw.physmem"
	if runtime.GOOS == "darwin" {
		name = "hw.memsize"
	}
	n, err := unix.SysctlUint64(name)
	if err != nil {
		return 0
	}
	return int64(n)
}
