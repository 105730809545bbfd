package recovery

import (
	"io/fs"
	"syscall"
	"time"
)

// statusChanged is the file's status change time (ctime).
func statusChanged(info fs.FileInfo) (time.Time, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctimespec.Sec, st.Ctimespec.Nsec), true
}
