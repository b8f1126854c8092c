//go:build unix

package sessions

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Skip("no CPU time here:", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
