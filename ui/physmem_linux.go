package ui

import "golang.org/x/sys/unix"

// physicalMemory is the machine's memory in bytes, 0 when it cannot be
// told.
func physicalMemory() int64 {
	var info unix.Sysinfo_t
	if err := unix.Sysinfo(&info); err != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}
