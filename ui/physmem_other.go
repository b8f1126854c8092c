//go:build !linux && !darwin && !ios && !freebsd && !netbsd && !openbsd && !dragonfly

package ui

// physicalMemory is the machine's memory in bytes, 0 when it cannot be
// told.
func physicalMemory() int64 { return 0 }
