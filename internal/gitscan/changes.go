package gitscan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DefaultMaxFiles is the most changed files a Changes lists.
const DefaultMaxFiles = 2000

// Changes is git's answer for one worktree: the files it changed against
// the point where its branch left the base branch, uncommitted (staged,
// unstaged, new untracked files not ignored) and committed since the
// merge base, as paths relative to the worktree's root, each with how it
// differs (States).
type Changes struct {
	Worktree  string // as asked, cleaned
	Root      string // the worktree's top directory, as git names it
	CommonDir string // the repository's git directory, absolute: one per clone
	// Repository is the repository's identity, one wherever it is
	// checked out (identity.go): hall.repository, else the tracked
	// remote's URL in one form, else "root:<sha>", else
	// "file://<CommonDir>". Never empty in an answer.
	Repository string
	Branch     string // the checked-out branch, short; "" when detached
	Head       string // HEAD's commit id
	Base       string // the base branch's ref; "" when there is none
	MergeBase  string // where HEAD left Base; "" without a base or a common ancestor
	// Files are the changed paths, repository-relative with "/", sorted,
	// each once, at most the MaxFiles asked for.
	Files []string
	// States are how each file differs: States[i] is Files[i]'s, from the
	// same two git runs (status and the merge base's diff), never empty.
	States []FileState
	Total  int  // changed files, listed or not
	Cut    bool // git's output was cut at the runner's bound: Total is a lower bound
	// Uncommitted counts the changed files, listed or not, with
	// uncommitted work (staged, modified or untracked): what a snapshot
	// reads (package recovery); a lower bound where Cut.
	Uncommitted int
}

// FileState is how one listed file differs, as a set: a file can be
// staged and modified again, or committed on the branch and modified
// since.
type FileState uint8

const (
	// Committed: a commit on the branch since the merge base changed it
	// (git diff merge-base HEAD). Alone, the work is in a commit: nothing
	// of it is uncommitted.
	Committed FileState = 1 << iota
	// Staged: the index differs from HEAD (status's first letter: added,
	// modified, deleted, or unmerged).
	Staged
	// Modified: the worktree differs from the index (status's second
	// letter), a deletion too.
	Modified
	// Untracked: a new file git does not track, not ignored ("??").
	Untracked
)

// Uncommitted reports whether any of the file's change is not in a
// commit: staged, modified or untracked.
func (s FileState) Uncommitted() bool { return s&(Staged|Modified|Untracked) != 0 }

// String names the set for tests and logs: "staged+modified".
func (s FileState) String() string {
	var names []string
	for _, n := range [...]struct {
		bit  FileState
		name string
	}{{Committed, "committed"}, {Staged, "staged"}, {Modified, "modified"}, {Untracked, "untracked"}} {
		if s&n.bit != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "unchanged"
	}
	return strings.Join(names, "+")
}

// statusState reads one porcelain v1 entry's two letters: X the index
// against HEAD, Y the worktree against the index ("??" untracked).
func statusState(x, y byte) FileState {
	if x == '?' && y == '?' {
		return Untracked
	}
	var s FileState
	if x != ' ' {
		s |= Staged
	}
	if y != ' ' {
		s |= Modified
	}
	return s
}

// StateOf is git's state of a repository-relative path: false when the
// path is not listed (unchanged, or left out past MaxFiles or a cut:
// Complete says which).
func (c Changes) StateOf(path string) (FileState, bool) {
	i, ok := slices.BinarySearch(c.Files, path)
	if !ok || i >= len(c.States) {
		return 0, false
	}
	return c.States[i], true
}

// Complete reports whether Files lists every changed file: a path it
// does not list is unchanged.
func (c Changes) Complete() bool { return !c.Cut && c.Total <= len(c.Files) }

// ChangesOptions tune one Changes call.
type ChangesOptions struct {
	// Base overrides the base branch (any revision git reads: a branch,
	// "origin/main"). "" takes the brain's default: origin/HEAD where set,
	// else the main worktree's branch.
	Base     string
	MaxFiles int // default DefaultMaxFiles
}

// Changes asks git what the worktree changed. It reads only: every
// command runs with GIT_OPTIONAL_LOCKS=0, so git status does not refresh
// the index either.
func (r *Runner) Changes(ctx context.Context, worktree string, o ChangesOptions) (Changes, error) {
	wt := filepath.Clean(worktree)
	if err := isDir(wt); err != nil {
		return Changes{}, err
	}
	c := Changes{Worktree: wt}
	// The base as given, or the default base of the repository the
	// worktree was last seen in, as asked of git within baseTTL (""
	// known: there is none). Known, its commit comes with the first git
	// run, and keys what the branch committed since the merge base.
	base, known := o.Base, o.Base != ""
	repo := ""
	if !known {
		repo = r.cache.repoOf(wt)
		base, known = r.cache.base(repo)
	}
	baseCommit := ""
	if known && base != "" {
		err := r.revParse(ctx, &c, base+"^{commit}", &baseCommit)
		if err != nil && CodeOf(err) != NotWorktree {
			return Changes{}, err
		}
		if err != nil {
			// git refused the worktree or the base: ask again without the
			// base (the worktree's own refusal comes from that run), and
			// a default base as on a first scan.
			r.cache.forgetBase(repo)
			known, baseCommit = o.Base != "", ""
		}
	}
	if c.Root == "" {
		if err := r.revParse(ctx, &c, "", nil); err != nil {
			return Changes{}, err
		}
	}
	if o.Base == "" && c.CommonDir != repo {
		// Seen here first (or in another repository now): its
		// repository's base, as another of its worktrees asked it.
		r.cache.seen(wt, c.CommonDir)
		base, known = r.cache.base(c.CommonDir)
		baseCommit = ""
	}
	c.Base = base
	if !known {
		var err error
		if c.Base, err = r.defaultBase(ctx, wt); err != nil {
			return Changes{}, err
		}
		r.cache.putBase(c.CommonDir, c.Base)
	}
	entries, cut, err := r.committed(ctx, &c, baseCommit)
	if err != nil {
		return Changes{}, err
	}
	c.Cut = c.Cut || cut
	uncommitted, cut, err := r.status(ctx, wt, nil)
	if err != nil {
		return Changes{}, err
	}
	c.Cut = c.Cut || cut
	c.join(append(entries, uncommitted...), orDefault(o.MaxFiles, DefaultMaxFiles))
	if err := r.identity(ctx, &c); err != nil {
		return Changes{}, err
	}
	return c, nil
}

// entry is one path's state as one git run gave it.
type entry struct {
	path  string
	state FileState
}

// status runs git status over the worktree, or only over the given
// repository-relative paths (each taken literally, as every path the
// runner passes: GIT_LITERAL_PATHSPECS; wt is then the worktree's top,
// which they are relative to): each changed path's uncommitted state;
// cut says git's output was cut at the runner's bound.
func (r *Runner) status(ctx context.Context, wt string, paths []string) ([]entry, bool, error) {
	// --ignore-submodules=dirty: a submodule is listed when its commit
	// moved, not for edits in its own working tree, which only a git
	// status run inside it (with its own configuration's drivers, which
	// this runner has not read) would tell.
	args := []string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=dirty"}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	out, err := r.Run(ctx, Cmd{Dir: wt, Args: args})
	if err != nil {
		return nil, false, err
	}
	return statusEntries(out.Stdout, out.Cut), out.Cut, nil
}

// statusEntries reads git status --porcelain=v1 -z output: "XY path"
// entries, two status letters and a space, each ended by a NUL. With
// --no-renames no entry carries a second (original) path. cut: the
// output was cut, its last entry maybe a part of one (dropped).
func statusEntries(out []byte, cut bool) []entry {
	var entries []entry
	for _, e := range splitNUL(out, cut) {
		if len(e) > 3 {
			entries = append(entries, entry{e[3:], statusState(e[0], e[1])})
		}
	}
	return entries
}

// join sets c's files and states from entries, one a path, its states
// joined (a file committed on the branch and modified since is both),
// sorted, at most limit listed and all counted.
func (c *Changes) join(entries []entry, limit int) {
	slices.SortStableFunc(entries, func(a, b entry) int { return strings.Compare(a.path, b.path) })
	var paths []string
	var states []FileState
	for _, e := range entries {
		if n := len(paths); n > 0 && paths[n-1] == e.path {
			states[n-1] |= e.state
			continue
		}
		paths = append(paths, e.path)
		states = append(states, e.state)
	}
	c.Total = len(paths)
	c.Uncommitted = 0
	for _, st := range states {
		if st.Uncommitted() {
			c.Uncommitted++
		}
	}
	if len(paths) > limit {
		paths, states = paths[:limit:limit], states[:limit:limit]
	}
	c.Files, c.States = paths, states
}

// MaxScopedPaths is the most paths a scoped scan (ChangesOf) asks git
// about; more take a whole scan.
const MaxScopedPaths = 64

// ChangesOf is Changes for a worktree whose last answer, prev, is known
// and whose presences have reported changing only the given paths
// (repository-relative) since: git status runs over those paths alone
// (about 10 ms on 10,000 files, where a whole status stats every tracked
// file and reads every directory: 50–90 ms), and prev's states of every
// other path are kept. The branch's commits come from the runner's cache
// as in a steady Changes. Where prev cannot stand for the rest (cut,
// bounded, failed, another HEAD, branch, root or base now) or the paths
// are too many, it is Changes. A change no presence reported (a person's
// editor) is left for a whole scan (the scanner's slow rescan, or a
// shell tool's run), as the scanner's deferral leaves one already.
func (r *Runner) ChangesOf(ctx context.Context, prev Changes, paths []string, o ChangesOptions) (Changes, error) {
	wt := filepath.Clean(prev.Worktree)
	base, known := o.Base, o.Base != ""
	if !known {
		base, known = r.cache.base(prev.CommonDir)
	}
	if !known || !prev.Complete() || prev.Root == "" || len(prev.States) != len(prev.Files) || len(paths) == 0 || len(paths) > MaxScopedPaths || base != prev.Base {
		return r.Changes(ctx, wt, o)
	}
	if err := isDir(wt); err != nil {
		return Changes{}, err
	}
	c := Changes{Worktree: wt, Base: base}
	baseCommit := ""
	ref := ""
	if base != "" {
		ref = base + "^{commit}"
	}
	if err := r.revParse(ctx, &c, ref, &baseCommit); err != nil {
		if CodeOf(err) == NotWorktree && base != "" {
			return r.Changes(ctx, wt, o) // the base no longer resolves
		}
		return Changes{}, err
	}
	if c.Head != prev.Head || c.Branch != prev.Branch || c.Root != prev.Root || c.CommonDir != prev.CommonDir {
		return r.Changes(ctx, wt, o)
	}
	entries, cut, err := r.committed(ctx, &c, baseCommit)
	if err != nil {
		return Changes{}, err
	}
	if cut {
		return r.Changes(ctx, wt, o)
	}
	scoped, cut, err := r.status(ctx, c.Root, paths)
	if err != nil {
		return Changes{}, err
	}
	if cut {
		return r.Changes(ctx, wt, o)
	}
	for i, f := range prev.Files {
		if st := prev.States[i] &^ Committed; st != 0 && !inScope(f, paths) {
			entries = append(entries, entry{f, st})
		}
	}
	c.join(append(entries, scoped...), orDefault(o.MaxFiles, DefaultMaxFiles))
	if err := r.identity(ctx, &c); err != nil {
		return Changes{}, err
	}
	return c, nil
}

// inScope reports whether a listed path is one of the scoped paths or
// lies under one (a path that became a directory).
func inScope(f string, paths []string) bool {
	for _, p := range paths {
		if f == p || strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// revParse fills the worktree's root, repository, HEAD and branch in c,
// and, given a base revision, its commit id in *baseCommit: one git run.
// A worktree git does not know is NotWorktree; with a base, so is a base
// git cannot resolve (the caller asks again without it).
func (r *Runner) revParse(ctx context.Context, c *Changes, base string, baseCommit *string) error {
	args := []string{"rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir", "HEAD"}
	want := 4
	if base != "" {
		args, want = append(args, base), 5
	}
	out, err := r.Run(ctx, Cmd{Dir: c.Worktree, Args: append(args, "--abbrev-ref", "HEAD")})
	if err != nil {
		if CodeOf(err) == Failed {
			return &Error{Code: NotWorktree, Op: "git rev-parse", Err: err}
		}
		return err
	}
	lines := strings.Split(strings.TrimRight(string(out.Stdout), "\n"), "\n")
	if len(lines) != want {
		return &Error{Code: Failed, Op: "git rev-parse", Err: errorf("%d lines, want %d", len(lines), want)}
	}
	c.Root, c.CommonDir, c.Head = lines[0], lines[1], lines[2]
	if base != "" {
		*baseCommit = lines[3]
	}
	if b := lines[want-1]; b != "HEAD" {
		c.Branch = b
	}
	return nil
}

// committed sets c's merge base and answers the files HEAD changed since
// it, each a Committed entry (none without a base), from the cache when
// the base's commit is known and was seen with this HEAD before; cut
// says git's output was cut at the runner's bound.
func (r *Runner) committed(ctx context.Context, c *Changes, baseCommit string) ([]entry, bool, error) {
	if c.Base == "" {
		return nil, false, nil
	}
	files, cut, err := r.committedFiles(ctx, c, baseCommit)
	entries := make([]entry, len(files))
	for i, f := range files {
		entries[i] = entry{f, Committed}
	}
	return entries, cut, err
}

// committedFiles is committed's paths, kept in the runner's cache by
// HEAD and the base's commit.
func (r *Runner) committedFiles(ctx context.Context, c *Changes, baseCommit string) (files []string, cut bool, err error) {
	if baseCommit != "" {
		if e, ok := r.cache.commits(c.Head, baseCommit); ok {
			c.MergeBase = e.mergeBase
			return e.files, false, nil
		}
	}
	out, err := r.Run(ctx, Cmd{Dir: c.Worktree, Args: []string{"merge-base", "HEAD", c.Base}, OK: []int{1}})
	if err != nil {
		return nil, false, err
	}
	c.MergeBase = strings.TrimSpace(string(out.Stdout))
	if c.MergeBase != "" && c.MergeBase != c.Head {
		out, err := r.Run(ctx, Cmd{Dir: c.Worktree, Args: []string{"diff", "--no-ext-diff", "--no-textconv", "--name-only", "-z", "--no-renames", c.MergeBase, c.Head, "--"}})
		if err != nil {
			return nil, false, err
		}
		for _, f := range splitNUL(out.Stdout, out.Cut) {
			if f != "" {
				files = append(files, f)
			}
		}
		cut = out.Cut
	}
	if baseCommit != "" && !cut {
		r.cache.putCommits(c.Head, baseCommit, cachedCommitted{mergeBase: c.MergeBase, files: files})
	}
	return files, cut, nil
}

// defaultBase is the brain's default branch: origin/HEAD where it is set,
// else the branch the main worktree (the first git lists) has checked
// out; "" when neither is there (a detached main worktree, no remote).
func (r *Runner) defaultBase(ctx context.Context, wt string) (string, error) {
	out, err := r.Run(ctx, Cmd{Dir: wt, Args: []string{"symbolic-ref", "-q", "refs/remotes/origin/HEAD"}, OK: []int{1}})
	if err != nil {
		return "", err
	}
	if ref := strings.TrimSpace(string(out.Stdout)); ref != "" {
		return ref, nil
	}
	out, err = r.Run(ctx, Cmd{Dir: wt, Args: []string{"worktree", "list", "--porcelain", "-z"}})
	if err != nil {
		return "", err
	}
	// The main worktree's record comes first and ends at an empty field.
	for _, f := range strings.Split(string(out.Stdout), "\x00") {
		if f == "" {
			break
		}
		if ref, ok := strings.CutPrefix(f, "branch "); ok {
			return ref, nil
		}
	}
	return "", nil
}

// isDir checks the worktree is a directory here (a presence can name a
// worktree on another machine, or one deleted since) owned by the user
// the Hall runs as (OwnedByUs): every scan and snapshot passes here
// before a git runs.
func isDir(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return &Error{Code: NotOnMachine, Op: "stat worktree", Err: err}
	}
	if !fi.IsDir() {
		return &Error{Code: NotOnMachine, Op: "stat worktree", Err: errorf("%s is not a directory", p)}
	}
	return ownedByUs(p, fi)
}

// splitNUL splits git's -z output; when the output was cut, the last
// field may be a part of a path and is dropped.
func splitNUL(b []byte, cut bool) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			if !cut {
				out = append(out, string(b))
			}
			break
		}
		out = append(out, string(b[:i]))
		b = b[i+1:]
	}
	return out
}

// Omitted is c without the files omit names (nil: c itself): Files and
// States lose them, Total counts them out. A list left unchanged is
// shared, not copied. Files past the listed ones (Total counts them, the
// list does not) cannot be told apart: Total keeps them, and the list
// stays incomplete, as it was.
func Omitted(c Changes, omit func(rel string) bool) Changes {
	if omit == nil || !slices.ContainsFunc(c.Files, omit) {
		return c
	}
	files := make([]string, 0, len(c.Files))
	states := make([]FileState, 0, len(c.States))
	for i, f := range c.Files {
		if omit(f) {
			c.Total--
			if i < len(c.States) && c.States[i].Uncommitted() {
				c.Uncommitted--
			}
			continue
		}
		files = append(files, f)
		if i < len(c.States) {
			states = append(states, c.States[i])
		}
	}
	c.Files, c.States = files, states
	return c
}
