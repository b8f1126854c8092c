//go:build unix

package index

import (
	"os"
	"syscall"
)

// inode is the file's inode number: a file replaced by another of the
// same size and time has another.
func inode(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
