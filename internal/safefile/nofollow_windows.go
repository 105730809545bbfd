//go:build windows

package safefile

import "syscall"

// ONoFollow is the os.OpenFile flag that never follows a final symlink:
// FILE_FLAG_OPEN_REPARSE_POINT (os.OpenFile passes the high bits of its
// flag to CreateFile as file flags), which opens a link itself instead of
// what it names. Unlike O_NOFOLLOW the open succeeds; the opened file's
// fstat says "symlink", so every caller's check that it is regular (which
// every opener here makes) refuses it, before a byte is read.
const ONoFollow = syscall.FILE_FLAG_OPEN_REPARSE_POINT
