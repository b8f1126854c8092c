package memory

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Physical is the machine's memory in bytes, or its control group's
// limit when lower (a container's memory is its limit, not its host's);
// 0 when it cannot be told.
func Physical() int64 { return withinLimit(systemMemory(), cgroupLimit()) }

// systemMemory is the memory the kernel reports, 0 when it does not.
func systemMemory() int64 {
	var info unix.Sysinfo_t
	if err := unix.Sysinfo(&info); err != nil {
		return 0
	}
	return int64(info.Totalram) * int64(info.Unit)
}

// cgroupLimit is the memory limit of the control group the process sees
// as its own (v2's memory.max, else v1's memory.limit_in_bytes), 0 when
// there is none or it cannot be read.
func cgroupLimit() int64 {
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && n > 0 {
			return n // v2 writes "max" for none, v1 a number past any memory
		}
	}
	return 0
}
