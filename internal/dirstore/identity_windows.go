//go:build windows

package dirstore

import (
	"io/fs"
	"syscall"
)

// identity is the file's creation time: a directory listing's stat on
// Windows carries no file index, and a record renamed into place was
// created (under its temp name) after the one it replaces.
func identity(info fs.FileInfo) uint64 {
	if d, ok := info.Sys().(*syscall.Win32FileAttributeData); ok {
		return uint64(d.CreationTime.Nanoseconds())
	}
	return 0
}
