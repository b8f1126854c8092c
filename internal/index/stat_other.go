//go:build !linux

package index

// statHead is statOpen where the system calls differ.
var statHead = statOpen
