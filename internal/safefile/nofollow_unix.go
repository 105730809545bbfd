//go:build unix

package safefile

import "syscall"

// ONoFollow is the os.OpenFile flag that never follows a final symlink:
// O_NOFOLLOW, whose open of a link fails with ELOOP.
const ONoFollow = syscall.O_NOFOLLOW
