package shellguard

import (
	"path"
	"path/filepath"
	"strings"
)

// State is what git (or, failing that, the Hall) knows of one file of
// another presence's work.
type State uint8

const (
	// Seen: the Hall saw the presence change the file; git's view of the
	// worktree is unknown, so the guard assumes any uncommitted state.
	Seen State = iota
	// Modified: tracked, changed in the worktree, not staged.
	Modified
	// Staged: changed in the index, not changed again in the worktree.
	Staged
	// Untracked: a new file git does not track yet.
	Untracked
	// Committed: seen changing but no longer changed: the work is in a
	// commit, so the file no longer guards.
	Committed
	// StagedModified: staged, and changed again in the worktree since:
	// what reaches a staged file or a modified one reaches it (`git add
	// -u` stages the newer part, a commit takes the staged one).
	StagedModified
)

// String names the state for tests and logs.
func (s State) String() string {
	switch s {
	case Seen:
		return "seen"
	case Modified:
		return "modified"
	case Staged:
		return "staged"
	case Untracked:
		return "untracked"
	case Committed:
		return "committed"
	case StagedModified:
		return "staged+modified"
	}
	return "unknown"
}

// File is one file of another presence's work, slash-separated and
// relative to the scene's worktree root.
type File struct {
	Path  string
	State State
}

// Work is what one other live presence has at stake in this worktree.
type Work struct {
	AgentID string
	Theme   string
	Files   []File
}

// Worktree is a worktree that belongs to another live presence.
type Worktree struct {
	Path    string // absolute
	AgentID string
	Theme   string
}

// Scene is everything the guard knows around one command line. Paths are
// absolute and cleaned by Classify; an empty Dir is Root.
type Scene struct {
	Root      string     // the worktree the command runs in (its top level)
	Dir       string     // the command's starting directory
	Home      string     // $HOME, for `~`; empty means unknown
	Branch    string     // the branch checked out in Root; empty when unknown or detached
	Others    []Work     // other live presences' work in Root
	Worktrees []Worktree // worktrees of other live presences
	Own       []string   // the running agent's own changed files, relative to Root
}

// Bounds on the scene. The Hall's records are bounded already (a presence
// keeps a bounded list of touched files); these keep the guard's work
// bounded whatever a caller passes.
const (
	MaxOthers         = 16
	MaxFilesPerOther  = 64 // a presence keeps 32 touched files
	MaxWorktrees      = 16
	MaxOwn            = 128
	maxScenePathBytes = 1024 // as the Hall bounds a path
)

// live reports whether a file in state s still holds uncommitted work.
func (s State) live() bool { return s != Committed }

// normalize cleans the scene's paths and drops what is out of bounds, so
// the classifier can compare strings.
func (sc Scene) normalize() Scene {
	sc.Root = cleanAbs(sc.Root)
	if sc.Dir == "" {
		sc.Dir = sc.Root
	}
	sc.Dir = cleanAbs(sc.Dir)
	sc.Home = cleanAbs(sc.Home)
	others := make([]Work, 0, min(len(sc.Others), MaxOthers))
	for _, w := range sc.Others[:min(len(sc.Others), MaxOthers)] {
		files := make([]File, 0, min(len(w.Files), MaxFilesPerOther))
		for _, f := range w.Files[:min(len(w.Files), MaxFilesPerOther)] {
			p, ok := cleanRel(f.Path)
			if ok && f.State.live() {
				files = append(files, File{Path: p, State: f.State})
			}
		}
		if len(files) > 0 {
			w.Files = files
			others = append(others, w)
		}
	}
	if sc.Root == "" {
		others = nil // files relative to no known root cannot be placed
	}
	sc.Others = others
	wts := make([]Worktree, 0, min(len(sc.Worktrees), MaxWorktrees))
	for _, wt := range sc.Worktrees[:min(len(sc.Worktrees), MaxWorktrees)] {
		wt.Path = cleanAbs(wt.Path)
		if wt.Path != "" && wt.Path != sc.Root && wt.Path != "/" {
			wts = append(wts, wt)
		}
	}
	sc.Worktrees = wts
	own := make([]string, 0, min(len(sc.Own), MaxOwn))
	for _, p := range sc.Own[:min(len(sc.Own), MaxOwn)] {
		if p, ok := cleanRel(p); ok {
			own = append(own, p)
		}
	}
	sc.Own = own
	return sc
}

// atStake reports whether anything in the scene could be harmed: with
// nothing at stake the command line is not even parsed.
func (sc Scene) atStake() bool { return len(sc.Others) > 0 || len(sc.Worktrees) > 0 }

// cleanAbs is p cleaned with forward slashes when absolute, else "".
func cleanAbs(p string) string {
	if p == "" || len(p) > maxScenePathBytes {
		return ""
	}
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	return path.Clean(p)
}

// cleanRel is a worktree-relative path cleaned; false when it is empty,
// absolute, too long or climbs out of the worktree.
func cleanRel(p string) (string, bool) {
	if p == "" || len(p) > maxScenePathBytes {
		return "", false
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == "." || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, true
}

// relIn is p (at or below root, both absolute and clean) relative to
// root: "." for root itself.
func relIn(root, p string) string {
	switch {
	case p == root:
		return "."
	case root == "/":
		return p[1:]
	}
	return p[len(root)+1:]
}

// under reports whether p is base or lies below it (both cleaned, absolute
// or both relative; "." holds every relative path).
func under(p, base string) bool {
	if base == "." || base == p {
		return true
	}
	if base == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, base) && len(p) > len(base) && p[len(base)] == '/'
}
