package hookinstall

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hall-dev/hall/internal/atomicfile"
	"github.com/hall-dev/hall/internal/safefile"
)

// ErrChanged: the file changed between the read and the write (another
// program, or another install, wrote it). Nothing was written; reading it
// again and redoing the edit is safe.
var ErrChanged = errors.New("the file changed since it was read")

// ErrForce: the file is a symbolic link or read-only, and the edit was
// not forced (Options.Force). Nothing was written.
var ErrForce = errors.New("refused without --force")

// read returns the file's content, whether it exists, its permissions
// and, when the file is a symbolic link, where the link points (as
// written in it): its content is then what the link leads to (nothing,
// when it leads nowhere). Anything else but a regular file is refused, as
// is a file over MaxFile.
func read(file string) (link string, b []byte, existed bool, perm os.FileMode, err error) {
	if fi, err := os.Lstat(file); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(file); err != nil {
			return "", nil, false, 0, fmt.Errorf("read %s: %w", file, err)
		}
	}
	b, existed, err = readRegular(file)
	if err != nil {
		return "", nil, false, 0, fmt.Errorf("read %s: %w", file, err)
	}
	perm = 0o644
	if fi, err := os.Stat(file); err == nil && existed {
		perm = fi.Mode().Perm()
	}
	return link, b, existed, perm, nil
}

// readRegular reads a regular file of at most MaxFile bytes, through
// safefile: a FIFO or a device at the path is refused at once, never
// waited on (a plain open of a FIFO waits for a writer for ever).
func readRegular(path string) ([]byte, bool, error) {
	b, err := safefile.ReadFile(path, MaxFile, safefile.Follow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, false, fmt.Errorf("%s is over %d bytes", path, MaxFile)
	case err != nil:
		return nil, false, err
	}
	return b, true, nil
}

// unchanged fails with ErrChanged unless res.File still holds what was
// read: the same content, and the same link (or none).
func unchanged(res Result) error {
	link := ""
	if fi, err := os.Lstat(res.File); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		link, _ = os.Readlink(res.File)
		if link == "" {
			link = "?"
		}
	}
	b, existed, err := readRegular(res.File)
	if err != nil {
		return fmt.Errorf("read %s again: %w", res.File, err)
	}
	if link != res.Link || existed != res.Existed || !bytes.Equal(b, res.Before) {
		return fmt.Errorf("%s: %w", res.File, ErrChanged)
	}
	return nil
}

// Write puts res.After in place of res.File, after copying the file it
// replaces to a backup beside it; it returns the backup's path ("" when
// there was no file). An uninstall that left the file as the installer
// starts one (the Hall wrote all of it) removes it, and its folder when
// that is left empty, with no backup: nothing of anyone else's was in
// it. Nothing is written when nothing changed; nothing at all when the
// file is no longer what was read (ErrChanged: run the edit again), nor
// when it is a symbolic link or read-only and the edit was not forced
// (ErrForce).
//
// A forced write over a symbolic link replaces the link with a regular
// file (what the link led to, edited) and keeps the link itself as the
// backup: the file it led to, maybe another program's, is never written.
// A forced write over a read-only file keeps its mode.
//
// The write is a rename of a temporary file in the same folder, so a
// reader sees the old file or the new, never half of one. Two installs
// take the folder's advisory lock in turn; any other writer's change is
// caught by comparing the file with what was read just before the
// rename.
//
// Every name is resolved beneath res.Root through an os.Root: a folder
// link out of it, made since the read too, is refused (LinkOutError), and
// nothing is written.
func Write(res Result, now time.Time) (backup string, err error) {
	if !res.Changed {
		return "", nil
	}
	if res.Refused != "" {
		return "", fmt.Errorf("%s: %w: %s; nothing was changed", res.File, ErrForce, res.Refused)
	}
	rootName, rel := res.Root, res.rel
	if rootName == "" || rel == "" { // a Result not made by Install or Uninstall
		rootName, rel = filepath.Dir(res.File), filepath.Base(res.File)
	}
	root, err := openBeneath(rootName, res.File, rel, true)
	if err != nil {
		return "", err
	}
	defer root.Close()
	dir := filepath.Dir(rel)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(res.File), err)
	}
	unlock, err := lockDir(root, dir)
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", filepath.Dir(res.File), err)
	}
	defer unlock()
	if err := unchanged(res); err != nil {
		return "", err
	}

	if res.Remove {
		if err := root.Remove(rel); err != nil {
			return "", fmt.Errorf("remove %s: %w", res.File, err)
		}
		// The folder goes too when empty, and a real folder: a link
		// to one (.claude -> config/claude) is somebody's, and stays.
		if fi, err := root.Lstat(dir); dir != "." && err == nil && fi.IsDir() {
			_ = root.Remove(dir) // only when empty
		}
		return "", nil
	}

	mode := res.Mode
	if mode == 0 {
		mode = 0o644
	}
	if res.Existed || res.Link != "" {
		if backup, err = writeBackup(root, rel, res, mode, now); err != nil {
			return "", err
		}
	}
	// The last look before the rename (atomicfile's Before): a writer
	// that came in since the read keeps its change, and this write is
	// dropped. The rename replaces the name itself: a link there is
	// replaced, and what it led to is left as it was.
	err = atomicfile.WriteFile(rel, res.After, atomicfile.Options{Root: root, Perm: mode, Before: func(fs.FileInfo) error { return unchanged(res) }})
	if errors.Is(err, ErrChanged) {
		if backup != "" {
			root.Remove(filepath.Join(dir, filepath.Base(backup)))
		}
		return "", err
	}
	if err != nil {
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	return backup, nil
}

// maxBackups bounds the names tried for one backup.
const maxBackups = 1000

// writeBackup copies res.Before to a new file beside rel beneath root,
// named <file>.hall-backup-<time>[-n]: created exclusively (O_EXCL), so
// it never overwrites another backup nor follows a link planted at its
// name. A link's backup is the link itself (made anew, pointing where it
// did). It returns the backup's path beside res.File.
func writeBackup(root *os.Root, rel string, res Result, mode os.FileMode, now time.Time) (string, error) {
	suffix := backupInfix + now.UTC().Format("20060102T150405Z")
	for n := 1; n <= maxBackups; n++ {
		s := suffix
		if n > 1 {
			s = fmt.Sprintf("%s-%d", suffix, n)
		}
		name, named := rel+s, res.File+s
		if res.Link != "" {
			err := root.Symlink(res.Link, name)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				return "", fmt.Errorf("back up %s: %w", res.File, err)
			}
			return named, nil
		}
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", res.File, err)
		}
		_, werr := f.Write(res.Before)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			root.Remove(name)
			return "", fmt.Errorf("back up %s: %w", res.File, err)
		}
		return named, nil
	}
	return "", fmt.Errorf("back up %s: %d backups of this second already exist", res.File, maxBackups)
}
