//go:build !linux && !darwin && !ios && !freebsd && !netbsd && !openbsd && !dragonfly

package memory

// Physical is the machine's memory in bytes, 0 when it cannot be
// told.
func Physical() int64 { return 0 }
