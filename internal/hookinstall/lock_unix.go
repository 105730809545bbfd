//go:build unix

package hookinstall

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockDir takes the advisory lock of the folder dir beneath root until
// unlock: two installs writing one folder's files take turns. It leaves
// no file behind.
func lockDir(root *os.Root, dir string) (unlock func(), err error) {
	f, err := root.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
