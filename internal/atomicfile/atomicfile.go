// Package atomicfile is the Hall's one way to put a file in place: a
// reader sees the old file or the new one, never half of one, and a
// crash leaves one or the other. The new content goes to a temporary
// file beside the name, named for what it is (.<name>.hall-tmp-<random>,
// created exclusively, so it never follows a link planted at its name
// nor overwrites another writer's), is synced, renamed over the name
// (the name itself is replaced: a symbolic link there is replaced, what
// it led to is left as it was), and the directory synced so the rename
// survives a power loss. A write that fails removes its temporary file
// and replaces nothing.
//
// Where the caller writes beneath a folder it must not leave (a
// person's worktree, a project's settings), it passes the folder as an
// os.Root: every component of the name is resolved beneath it, and a
// folder link leading out of it is refused.
//
// It knows nothing of what the files hold: the Hall's records, a
// snapshot's restored files and an agent's settings are its callers'
// (internal/dirstore, internal/recovery, internal/hookinstall).
package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// TempInfix marks a temporary file: .<name>.hall-tmp-<random>.
const TempInfix = ".hall-tmp-"

// randomLen is the length of a temporary name's random part.
const randomLen = 12

// maxBase bounds the part of a name a temporary name repeats, so that it
// stays under the 255 bytes a file name may have.
const maxBase = 200

// Options says where and how a file is written. The zero value writes
// a durable file (synced, its directory synced) relative to the working
// directory, keeping the mode of the file it replaces.
type Options struct {
	// Root, when set, is the folder the name is relative to: every
	// component is resolved beneath it, a link leading out refused.
	Root *os.Root
	// Perm is the new file's permissions, set exactly (the umask does
	// not apply); 0 keeps those of the regular file it replaces (0o644
	// for a new one).
	Perm fs.FileMode
	// NoSync skips the syncs of the file and of its directory: for a
	// file rewritten every few seconds that a power loss may take back
	// to an older version (dirstore's records, whose readers treat an
	// old one as a late beat); the rename is atomic all the same.
	NoSync bool
	// Before, when set, is called with the finished temporary file (its
	// info as the name will have it after the rename) just before the
	// rename: an error stops the write, the temporary file removed and
	// nothing replaced. A caller checks there that the name still holds
	// what it read, or clears the way.
	Before func(written fs.FileInfo) error
}

// WriteFile puts data in place at name, as Write does.
func WriteFile(name string, data []byte, o Options) error {
	return Write(name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, o)
}

// Write puts at name what content writes (streamed: a large file is
// never held whole), through a temporary file beside it: see the
// package comment. Its errors are the file system's (*fs.PathError,
// naming the temporary file or the rename), content's and Before's, as
// they come: the caller says which file it was writing. Only an error
// syncing the folder comes after the rename: the new file is then in
// place, though a power loss may still take the rename back.
func Write(name string, content func(io.Writer) error, o Options) (err error) {
	fsys := dirOf(o.Root)
	perm := o.Perm
	if perm == 0 {
		perm = 0o644
		if fi, err := fsys.lstat(name); err == nil && fi.Mode().IsRegular() {
			perm = fi.Mode().Perm()
		}
	}
	tmp := TempName(name)
	f, err := fsys.create(tmp)
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			fsys.remove(tmp)
		}
	}()
	err = content(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil && !o.NoSync {
		err = f.Sync()
	}
	var info fs.FileInfo
	if err == nil && o.Before != nil {
		info, err = f.Stat()
	}
	if err := errors.Join(err, f.Close()); err != nil {
		return err
	}
	if o.Before != nil {
		if err := o.Before(info); err != nil {
			return err
		}
	}
	if err := fsys.rename(tmp, name); err != nil {
		return err
	}
	renamed = true
	return syncDir(fsys, name, o)
}

// Symlink puts a symbolic link to target at name, as Write puts a file:
// made beside it under a temporary name, then renamed over the name.
// Options.Perm does not apply.
func Symlink(target, name string, o Options) error {
	fsys := dirOf(o.Root)
	tmp := TempName(name)
	if err := fsys.symlink(target, tmp); err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			fsys.remove(tmp)
		}
	}()
	if o.Before != nil {
		info, err := fsys.lstat(tmp)
		if err != nil {
			return err
		}
		if err := o.Before(info); err != nil {
			return err
		}
	}
	if err := fsys.rename(tmp, name); err != nil {
		return err
	}
	renamed = true
	return syncDir(fsys, name, o)
}

// syncDir syncs the directory holding name, so that its rename lasts.
// A file system that cannot sync a directory (EINVAL) is taken at its
// word.
func syncDir(fsys dir, name string, o Options) error {
	if o.NoSync {
		return nil
	}
	d, err := fsys.open(filepath.Dir(name))
	if err == nil {
		err = errors.Join(d.Sync(), d.Close())
	}
	if err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync the folder of %s: %w", name, err)
	}
	return nil
}

// TempName is a fresh temporary name beside name:
// .<name>.hall-tmp-<random>, the name cut to maxBase bytes (at a whole
// character) where it is longer.
func TempName(name string) string {
	base := filepath.Base(name)
	if len(base) > maxBase {
		cut := maxBase
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		base = base[:cut]
	}
	return filepath.Join(filepath.Dir(name), "."+base+TempInfix+strings.ToLower(rand.Text()[:randomLen]))
}

// IsTemp tells whether a file name (a base name, no folder) is one
// TempName makes: a write in flight, or one a crash left.
func IsTemp(base string) bool {
	i := len(base) - randomLen - len(TempInfix)
	return strings.HasPrefix(base, ".") && i > 0 && base[i:i+len(TempInfix)] == TempInfix
}

// dir is where a write happens: the file system as the process sees it,
// or beneath an os.Root.
type dir struct{ root *os.Root }

func dirOf(root *os.Root) dir { return dir{root} }

func (d dir) create(name string) (*os.File, error) {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if d.root != nil {
		return d.root.OpenFile(name, flags, 0o600)
	}
	return os.OpenFile(name, flags, 0o600)
}

func (d dir) open(name string) (*os.File, error) {
	if d.root != nil {
		return d.root.Open(name)
	}
	return os.Open(name)
}

func (d dir) lstat(name string) (fs.FileInfo, error) {
	if d.root != nil {
		return d.root.Lstat(name)
	}
	return os.Lstat(name)
}

func (d dir) symlink(target, name string) error {
	if d.root != nil {
		return d.root.Symlink(target, name)
	}
	return os.Symlink(target, name)
}

func (d dir) rename(from, to string) error {
	if d.root != nil {
		return d.root.Rename(from, to)
	}
	return os.Rename(from, to)
}

func (d dir) remove(name string) {
	if d.root != nil {
		d.root.Remove(name)
		return
	}
	os.Remove(name)
}
