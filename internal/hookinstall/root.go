package hookinstall

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Every write the installer makes (the file, its backup, the temporary
// file, the rename, the removal, the folder's lock, a repository's
// info/exclude) goes through an os.Root opened on the folder the file
// must stay beneath: the project, the home (--user), the repository's git
// folder. os.Root resolves a name one component at a time and follows a
// symbolic link only when it is relative and stays beneath the root, so
// no link a repository commits (.claude -> /elsewhere) leads a write out
// of it, whatever changes between the look and the write (issue 40).

// LinkOutError: a folder between the root and the file is a symbolic link
// that os.Root will not follow (it leads out of the root, is absolute or
// leads nowhere). Nothing was written.
type LinkOutError struct {
	File   string // the file to write
	Root   string // the folder it must stay beneath
	Link   string // the folder that is a link
	Target string // where the link points, as written in it
	// Why os.Root does not follow it: "leads out of <root>", "is
	// absolute" (it stays beneath the root, but os.Root follows only a
	// relative link), "leads nowhere".
	Why string
	// Forcible: the link is the person's own (a --user install), and
	// Options.Force follows it.
	Forcible bool
}

func (e *LinkOutError) Error() string {
	msg := fmt.Sprintf("%s: %s is a symbolic link to %s, which %s, and a write beneath %s follows only a relative link that stays beneath it: ", e.File, e.Link, e.Target, e.Why, e.Root)
	if e.Forcible {
		return msg + "--force writes the file where your link leads (the link stays as it is); nothing was changed"
	}
	return msg + "the Hall writes nothing through a link that leads out of the project, with or without --force; nothing was changed"
}

// beneath is file's name relative to root, as os.Root takes it; an error
// when file does not lie beneath root.
func beneath(root, file string) (string, error) {
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s is not beneath %s: the installer writes only beneath it", file, root)
	}
	return rel, nil
}

// checkFolders refuses a folder between root and rel (rel's parents,
// the last included) that is a symbolic link os.Root does not follow,
// naming it; a missing folder ends the look (MkdirAll makes it, a real
// folder). A folder link os.Root follows (relative, staying beneath
// root) is allowed: the write stays beneath root.
func checkFolders(root *os.Root, rootName, file, rel string) error {
	comps := strings.Split(filepath.Dir(rel), string(filepath.Separator))
	for i := range comps {
		if comps[0] == "." {
			break
		}
		dir := filepath.Join(comps[:i+1]...)
		fi, err := root.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return fmt.Errorf("%s: %w", file, err)
		case fi.Mode()&fs.ModeSymlink == 0:
			continue
		}
		if st, err := root.Stat(dir); err == nil && st.IsDir() {
			continue // a link that stays beneath root
		}
		target, _ := root.Readlink(dir)
		link := filepath.Join(rootName, dir)
		return &LinkOutError{File: file, Root: rootName, Link: link, Target: target, Why: whyNot(rootName, link)}
	}
	return nil
}

// whyNot says why os.Root does not follow the folder link beneath
// rootName (for LinkOutError, a message only: the write never depends
// on it).
func whyNot(rootName, link string) string {
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "leads nowhere"
	}
	if realRoot, err := filepath.EvalSymlinks(rootName); err == nil {
		if _, err := beneath(realRoot, real); err == nil || real == realRoot {
			return "is absolute"
		}
	}
	return "leads out of " + rootName
}

// openBeneath opens rootName as an os.Root and checks the folders
// between it and rel (checkFolders). With create it makes rootName when
// missing (the caller vouches for the root itself); without, a missing
// root is nil, nil: nothing beneath it to check.
func openBeneath(rootName, file, rel string, create bool) (*os.Root, error) {
	if create {
		if err := os.MkdirAll(rootName, 0o755); err != nil {
			return nil, fmt.Errorf("create %s: %w", rootName, err)
		}
	}
	root, err := os.OpenRoot(rootName)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", rootName, err)
	}
	if err := checkFolders(root, rootName, file, rel); err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}

// rootFor is the folder o.File's writes stay beneath, and the file's
// name beneath it: o.Root (absolute), or the file's own folder when none
// is given. A folder link out of it is refused (LinkOutError); for the
// person's own file (o.User) with o.Force, the link is followed, and the
// root is the folder the file's own folder resolves to; note says so,
// for the summary.
func rootFor(o Options) (root, rel, note string, err error) {
	if o.Root == "" {
		return filepath.Dir(o.File), filepath.Base(o.File), "", nil
	}
	if root, err = filepath.Abs(o.Root); err != nil {
		return "", "", "", fmt.Errorf("root folder: %w", err)
	}
	if rel, err = beneath(root, o.File); err != nil {
		return "", "", "", err
	}
	r, err := openBeneath(root, o.File, rel, false)
	var out *LinkOutError
	switch {
	case errors.As(err, &out) && o.User && o.Force:
		dir := filepath.Dir(o.File)
		real, rerr := filepath.EvalSymlinks(dir)
		if rerr != nil {
			return "", "", "", fmt.Errorf("%w (%s: %v)", err, dir, rerr)
		}
		return real, filepath.Base(o.File), fmt.Sprintf("%s is a symbolic link to %s: --force writes beneath %s (the link stays)", out.Link, out.Target, real), nil
	case errors.As(err, &out):
		out.Forcible = o.User
		return "", "", "", out
	case err != nil:
		return "", "", "", err
	}
	if r != nil {
		r.Close()
	}
	return root, rel, "", nil
}
