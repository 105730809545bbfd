//go:build unix

package dirstore

import (
	"io/fs"
	"syscall"
)

// identity is the file's inode.
func identity(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
