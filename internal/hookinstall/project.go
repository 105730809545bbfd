package hookinstall

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ProjectRoot is the project a folder belongs to: the root of the git
// worktree holding dir (its top level, as git answers it), or dir itself
// outside one. A project install from a subfolder thus lands where the
// agent, started at the root, reads it.
func ProjectRoot(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, "git", "-C", abs, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return abs, nil // not in a git worktree (or no git): the folder itself
	}
	if root := strings.TrimSpace(string(out)); root != "" {
		return filepath.FromSlash(root), nil
	}
	return abs, nil
}

// Ignored reports whether git ignores file in the worktree at root: a
// personal settings file the person would otherwise commit by mistake is
// worth a note. False outside a repository or without git.
func Ignored(ctx context.Context, root, file string) bool {
	return exec.CommandContext(ctx, "git", "-C", root, "check-ignore", "-q", "--", file).Run() == nil
}

// InRepository reports whether root is in a git worktree.
func InRepository(ctx context.Context, root string) bool {
	return exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--is-inside-work-tree").Run() == nil
}

// ExcludeFile is the repository's own ignore list, info/exclude in its
// git directory (as git names it from root: in a linked worktree, the
// main one's, which every worktree of the repository reads). It is never
// committed.
func ExcludeFile(ctx context.Context, root string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--git-path", "info/exclude").Output()
	if err != nil {
		return "", fmt.Errorf("find info/exclude from %s: %w", root, err)
	}
	p := filepath.FromSlash(strings.TrimSpace(string(out)))
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	return p, nil
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
// outside the agent's file, and only when asked (--git-exclude).
func Exclude(ctx context.Context, root, rel string) (string, []string, error) {
	file, err := ExcludeFile(ctx, root)
	if err != nil {
		return "", nil, err
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
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
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return file, nil, fmt.Errorf("create %s: %w", filepath.Dir(file), err)
	}
	text := strings.Join(add, "\n") + "\n"
	if len(old) > 0 && !strings.HasSuffix(string(old), "\n") {
		text = "\n" + text
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return file, nil, fmt.Errorf("open %s: %w", file, err)
	}
	_, werr := f.WriteString(text)
	if err := errors.Join(werr, f.Close()); err != nil {
		return file, nil, fmt.Errorf("write %s: %w", file, err)
	}
	return file, add, nil
}
