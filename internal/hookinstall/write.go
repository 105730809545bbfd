package hookinstall

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hall-dev/hall/internal/safefile"
)

// ErrChanged: the file changed between the read and the write (another
// program, or another install, wrote it). Nothing was written; reading it
// again and redoing the edit is safe.
var ErrChanged = errors.New("the file changed since it was read")

// read returns the file's target (the end of its symlinks; the file
// itself when it is none or does not exist), its content and whether it
// exists. Anything but a regular file is refused, as is a file over
// MaxFile.
func read(file string) (target string, b []byte, existed bool, err error) {
	target = file
	if fi, err := os.Lstat(file); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// A dangling link: the file is made where it points.
			dest, rerr := os.Readlink(file)
			if rerr != nil {
				return "", nil, false, fmt.Errorf("read %s: %w", file, rerr)
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(file), dest)
			}
			return dest, nil, false, nil
		case err != nil:
			return "", nil, false, fmt.Errorf("read %s: %w", file, err)
		}
		target = t
	}
	b, existed, err = readRegular(target)
	if err != nil {
		return "", nil, false, fmt.Errorf("read %s: %w", file, err)
	}
	return target, b, existed, nil
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

// unchanged fails with ErrChanged unless res.Target still holds what was
// read.
func unchanged(res Result) error {
	b, existed, err := readRegular(res.Target)
	if err != nil {
		return fmt.Errorf("read %s again: %w", res.File, err)
	}
	if existed != res.Existed || !bytes.Equal(b, res.Before) {
		return fmt.Errorf("%s: %w", res.File, ErrChanged)
	}
	return nil
}

// Write puts res.After in place of res.File (through a symlink, at its
// target), after copying the file it replaces to a backup beside it; it
// returns the backup's path ("" when there was no file, or none was
// needed). An uninstall that left the file holding nothing removes it,
// and its folder when that is left empty, with no backup. Nothing is
// written when nothing changed, and nothing at all when the file is no
// longer what was read (ErrChanged): run the edit again.
//
// The write is a rename of a temporary file in the same folder, so a
// reader sees the old file or the new, never half of one. Two installs
// take the folder's advisory lock in turn; any other writer's change is
// caught by comparing the file with what was read just before the
// rename.
func Write(res Result, now time.Time) (backup string, err error) {
	if !res.Changed {
		return "", nil
	}
	dir := filepath.Dir(res.Target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", dir, err)
	}
	defer unlock()
	if err := unchanged(res); err != nil {
		return "", err
	}

	if res.Remove {
		if err := os.Remove(res.Target); err != nil {
			return "", fmt.Errorf("remove %s: %w", res.File, err)
		}
		if res.Target != res.File {
			// The file was a link to the one removed: the link goes too.
			_ = os.Remove(res.File)
		}
		_ = os.Remove(filepath.Dir(res.File)) // only when empty
		return "", nil
	}

	mode := os.FileMode(0o644)
	if res.Existed {
		if fi, err := os.Stat(res.Target); err == nil {
			mode = fi.Mode().Perm()
		}
		if backup, err = writeBackup(res, mode, now); err != nil {
			return "", err
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(res.Target)+".tmp-*")
	if err != nil {
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(res.After); err != nil {
		tmp.Close()
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	if err := tmp.Close(); err != nil {
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	// The last look before the rename: a writer that came in since the
	// read keeps its change, and this write is dropped.
	if err := unchanged(res); err != nil {
		if backup != "" {
			os.Remove(backup)
		}
		return "", err
	}
	if err := os.Rename(tmp.Name(), res.Target); err != nil {
		return backup, fmt.Errorf("write %s: %w", res.File, err)
	}
	return backup, nil
}

// maxBackups bounds the names tried for one backup.
const maxBackups = 1000

// writeBackup copies res.Before to a new file beside res.File, named
// <file>.hall-backup-<time>[-n]: created exclusively (O_EXCL), so it never
// overwrites another backup nor follows a link planted at its name.
func writeBackup(res Result, mode os.FileMode, now time.Time) (string, error) {
	base := res.File + backupInfix + now.UTC().Format("20060102T150405Z")
	for n := 1; n <= maxBackups; n++ {
		name := base
		if n > 1 {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", res.File, err)
		}
		_, werr := f.Write(res.Before)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", res.File, err)
		}
		return name, nil
	}
	return "", fmt.Errorf("back up %s: %d backups of this second already exist", res.File, maxBackups)
}
