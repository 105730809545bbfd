// Package safefile opens the files a request can name: a hook payload's
// cwd leads the Hall to git's files under it, an MCP client's roots and
// caller_root do the same, and `hall hooks install` reads an agent's
// settings. Any of them may be a FIFO (whose plain open waits for a writer
// for ever, holding an OS thread), a device, a symlink to one
// (/proc/self/fd/0), or huge. Every such file is opened here alike, as
// internal/dirstore opens its records: without waiting (O_NONBLOCK),
// without following a final symlink unless the caller says the file may be
// one, checked on the opened descriptor (fstat) to be a regular file
// before a byte is read, and read up to a cap.
//
// It knows nothing of git, hooks or the Hall's records; a deadline on a
// whole lookup is the caller's (package place).
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Links says whether a final symlink is followed.
type Links bool

const (
	// NoFollow refuses a file that is a symlink (ErrNotRegular): for files
	// their writer never links (git's commondir, gitdir).
	NoFollow Links = false
	// Follow opens what a symlink names, still only a regular file: for
	// files people link (a settings file kept in a dotfiles repository).
	Follow Links = true
)

// ErrNotRegular: the name is a directory, FIFO, socket, device or (under
// NoFollow) a symlink; nothing was read.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge: the file holds more than the caller's cap; nothing is
// returned.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the regular file name whole, if it holds at most max
// bytes. A missing file's error wraps fs.ErrNotExist, as os.ReadFile's
// does. It never blocks on the file's kind: a FIFO, a device or a socket
// is refused without a read.
func ReadFile(name string, max int64, links Links) ([]byte, error) {
	f, err := Open(name, links)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: over %d bytes: %w", name, max, ErrTooLarge)
	}
	return b, nil
}

// Open opens the regular file name for reading, as ReadFile does, and
// returns it; the caller bounds what it reads.
func Open(name string, links Links) (*os.File, error) {
	return opened(name, links, func(flags int) (*os.File, error) { return os.OpenFile(name, flags, 0) })
}

// OpenIn opens the regular file name beneath root for reading, as Open
// does, except that no component of name leads out of root: os.Root
// follows a link (the last component's too) only while it stays
// beneath it.
func OpenIn(root *os.Root, name string) (*os.File, error) {
	return opened(name, NoFollow, func(flags int) (*os.File, error) { return root.OpenFile(name, flags, 0) })
}

// opened opens name through open, as Open describes.
func opened(name string, links Links, open func(flags int) (*os.File, error)) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if links == NoFollow {
		flags |= ONoFollow
	}
	f, err := open(flags)
	if errors.Is(err, syscall.ELOOP) && links == NoFollow {
		return nil, fmt.Errorf("%s: a symlink: %w", name, ErrNotRegular)
	}
	if err != nil {
		return nil, err // *fs.PathError: wraps fs.ErrNotExist when missing
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %s: %w", name, Kind(info.Mode()), ErrNotRegular)
	}
	return f, nil
}

// Kind names what a file mode is, for an error or a refusal: "a
// directory", "a FIFO", "a socket", "a device", "a symbolic link", "a
// file", else "not a regular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a file"
	}
	return "not a regular file"
}
