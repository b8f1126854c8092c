//go:build unix

package app

import (
	"os"
	"syscall"
)

// fileID is what tells a file apart from every other on this machine,
// however it is named: its device and inode.
func fileID(info os.FileInfo) (id [2]uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return id, false
	}
	return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
}
