package hookinstall

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/safefile"
)

// Git is git as the installer asks it (the repository a folder is in,
// what it tracks and ignores): through the Hall's one git runner
// (package gitscan: bounded, timed out, GIT_OPTIONAL_LOCKS=0), at the
// caller's priority. The zero value, or one made where git cannot run,
// answers as outside any repository.
type Git struct {
	run *gitscan.Runner
}

// NewGit finds git on PATH; without a usable one the Git answers as
// outside any repository.
func NewGit(ctx context.Context) Git {
	run, err := gitscan.NewRunner(ctx, gitscan.RunnerConfig{Nice: -1})
	if err != nil {
		return Git{}
	}
	return Git{run: run}
}

// git runs one git command in dir; ok is false when git cannot run or
// exits with a code other than 0 and those in also.
func (g Git) git(ctx context.Context, dir string, args []string, also ...int) (gitscan.Output, bool) {
	if g.run == nil {
		return gitscan.Output{}, false
	}
	out, err := g.run.Run(ctx, gitscan.Cmd{Dir: dir, Args: args, OK: also})
	return out, err == nil
}

// ProjectRoot is the project a folder belongs to: the root of the git
// worktree holding dir (its top level, as git answers it), or dir itself
// outside one. A project install from a subfolder thus lands where the
// agent, started at the root, reads it.
func (g Git) ProjectRoot(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	out, ok := g.git(ctx, abs, []string{"rev-parse", "--show-toplevel"})
	if !ok {
		return abs, nil // not in a git worktree (or no git): the folder itself
	}
	if root := strings.TrimSpace(string(out.Stdout)); root != "" {
		return filepath.FromSlash(root), nil
	}
	return abs, nil
}

// MainWorktree is the main worktree of the repository whose linked
// worktree root is; ok is false when root is the main worktree itself,
// in no repository, or the repository has no main worktree (a bare one).
func (g Git) MainWorktree(ctx context.Context, root string) (main string, ok bool) {
	out, ok := g.git(ctx, root, []string{"rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"})
	if !ok {
		return "", false
	}
	dirs := strings.Split(strings.TrimSpace(string(out.Stdout)), "\n")
	if len(dirs) != 2 || filepath.Clean(dirs[0]) == filepath.Clean(dirs[1]) {
		return "", false // the main worktree (or git said something else)
	}
	// The main worktree is listed first; a bare repository's first entry
	// says "bare".
	out, ok = g.git(ctx, root, []string{"worktree", "list", "--porcelain", "-z"})
	if !ok {
		return "", false
	}
	fields := strings.Split(string(out.Stdout), "\x00")
	first, isWorktree := strings.CutPrefix(fields[0], "worktree ")
	if !isWorktree || first == "" {
		return "", false
	}
	for _, f := range fields[1:] {
		if f == "" {
			break // the end of the first entry
		}
		if f == "bare" {
			return "", false
		}
	}
	return filepath.FromSlash(first), true
}

// Ignored reports whether git ignores file in the worktree at root: a
// personal settings file the person would otherwise commit by mistake is
// worth a note. False outside a repository or without git.
func (g Git) Ignored(ctx context.Context, root, file string) bool {
	out, ok := g.git(ctx, root, []string{"check-ignore", "-q", "--", file}, 1)
	return ok && out.Exit == 0
}

// InRepository reports whether root is in a git worktree.
func (g Git) InRepository(ctx context.Context, root string) bool {
	_, ok := g.git(ctx, root, []string{"rev-parse", "--is-inside-work-tree"})
	return ok
}

// ExcludeFile is the repository's own ignore list, info/exclude in its
// git directory (as git names it from root: in a linked worktree, the
// main one's, which every worktree of the repository reads). It is never
// committed.
func (g Git) ExcludeFile(ctx context.Context, root string) (string, error) {
	_, file, err := g.excludePaths(ctx, root)
	return file, err
}

// excludePaths are the repository's git folder (the common one, shared
// by every worktree), absolute as git names it from root, and its
// info/exclude (git reads it there: $GIT_COMMON_DIR/info/exclude), named
// beneath it as given, never resolved through a link.
func (g Git) excludePaths(ctx context.Context, root string) (gitDir, file string, err error) {
	out, ok := g.git(ctx, root, []string{"rev-parse", "--path-format=absolute", "--git-common-dir"})
	gitDir = filepath.FromSlash(strings.TrimSpace(string(out.Stdout)))
	if !ok || !filepath.IsAbs(gitDir) {
		return "", "", fmt.Errorf("find info/exclude from %s: git cannot answer there", root)
	}
	return gitDir, filepath.Join(gitDir, "info", "exclude"), nil
}

// ExcludePatterns are the lines of an ignore list that keep one of the
// installer's project files (rel, one of ProjectFiles) and its backups
// out of git's view, anchored at the worktree's root.
func ExcludePatterns(rel string) []string {
	return []string{"/" + rel, "/" + rel + backupInfix + "*"}
}

// Exclude adds the ExcludePatterns of rel that the repository's
// info/exclude (ExcludeFile from root) does not hold yet, at its end,
// creating it if need be; it returns the file and the lines added (none
// when all were there). It is the only write `hall hooks install` makes
// outside the agent's file, and only when asked (--git-exclude). It is
// read and written through an os.Root on the repository's git folder (as
// git names it from root): a link in it that leads out (.git/info ->
// /elsewhere) is refused (LinkOutError), nothing written.
func (g Git) Exclude(ctx context.Context, root, rel string) (string, []string, error) {
	gitDir, file, err := g.excludePaths(ctx, root)
	if err != nil {
		return "", nil, err
	}
	name, err := beneath(gitDir, file)
	if err != nil {
		return file, nil, err
	}
	r, err := openBeneath(gitDir, file, name, false)
	if err == nil && r == nil {
		err = fmt.Errorf("%s: the git folder %s is not there", file, gitDir)
	}
	if err != nil {
		return file, nil, err
	}
	defer r.Close()
	old, err := readIn(r, name)
	if err != nil {
		return file, nil, fmt.Errorf("read %s: %w", file, err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(old), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	var add []string
	for _, p := range ExcludePatterns(rel) {
		if !have[p] {
			add = append(add, p)
		}
	}
	if len(add) == 0 {
		return file, nil, nil
	}
	if err := r.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return file, nil, fmt.Errorf("create %s: %w", filepath.Dir(file), err)
	}
	text := strings.Join(add, "\n") + "\n"
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		text = "\n" + text
	}
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return file, nil, fmt.Errorf("open %s: %w", file, err)
	}
	_, werr := f.WriteString(text)
	if err := errors.Join(werr, f.Close()); err != nil {
		return file, nil, fmt.Errorf("write %s: %w", file, err)
	}
	return file, add, nil
}

// readIn reads the regular file name beneath root, at most MaxFile bytes
// (nil when it is not there); a FIFO or a device is refused at once
// (safefile), never waited on.
func readIn(root *os.Root, name string) ([]byte, error) {
	f, err := safefile.OpenIn(root, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err == nil && len(b) > MaxFile {
		err = fmt.Errorf("over %d bytes", MaxFile)
	}
	return b, err
}
