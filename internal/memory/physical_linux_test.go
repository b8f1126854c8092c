package memory

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestSystemMemory: the memory the kernel reports is /proc/meminfo's
// MemTotal.
func TestSystemMemory(t *testing.T) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skipf("no /proc/meminfo to compare with: %v", err)
	}
	var kb int64
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	if kb == 0 {
		t.Skip("no MemTotal in /proc/meminfo")
	}
	if got := systemMemory(); got != kb<<10 {
		t.Errorf("systemMemory() = %d, MemTotal %d kB = %d bytes", got, kb, kb<<10)
	}
}
