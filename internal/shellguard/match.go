package shellguard

import (
	"path"
	"strings"
)

// stateSet is the file states an action reaches: `git add -u` never
// reaches an untracked file, `git clean` only reaches untracked ones.
type stateSet uint8

func states(ss ...State) stateSet {
	var set stateSet
	for _, s := range ss {
		set |= 1 << s
	}
	return set
}

func (set stateSet) has(s State) bool { return set&(1<<s) != 0 }

var (
	// tracked: what git sees as a change to a tracked file (Seen may be one).
	tracked = states(Seen, Modified, Staged)
	// anyLive: every state that still holds uncommitted work.
	anyLive = states(Seen, Modified, Staged, Untracked)
)

// emit records that the command text would do action to file fi of
// agent ai (fi < 0: the agent's whole work is named by Worktree).
func (c *classifier) emit(text string, action Action, reason Reason, ai, fi int) {
	key := findingKey{cmd: text, action: action, reason: reason, agent: ai}
	n, ok := c.seen[key]
	if !ok {
		if len(c.findings) == MaxFindings {
			c.more++
			c.seen[key] = -1
			return
		}
		f := Finding{Command: text, Action: action, Reason: reason}
		if ai >= 0 {
			f.AgentID, f.Theme = c.sc.Others[ai].AgentID, c.sc.Others[ai].Theme
		} else {
			wt := c.sc.Worktrees[-1-ai]
			f.AgentID, f.Theme, f.Worktree = wt.AgentID, wt.Theme, wt.Path
		}
		n = len(c.findings)
		c.seen[key] = n
		c.findings = append(c.findings, f)
	}
	if action == Stage && reason == Certain && ai >= 0 && fi >= 0 {
		// Staged now: a commit later on the same line takes it.
		c.staged[[2]int{ai, fi}] = true
	}
	if n < 0 || fi < 0 || c.fileSeen[fileKey{n, fi}] {
		return
	}
	c.fileSeen[fileKey{n, fi}] = true
	c.findings[n].Files = append(c.findings[n].Files, c.sc.Others[ai].Files[fi])
}

// each calls fn for every other presence's file whose state is in set.
func (c *classifier) each(set stateSet, fn func(ai, fi int, f File) bool, text string, action Action, reason Reason) {
	for ai, w := range c.sc.Others {
		for fi, f := range w.Files {
			c.steps++
			if (set.has(f.State) || (set.has(Staged) && c.staged[[2]int{ai, fi}])) && fn(ai, fi, f) {
				c.emit(text, action, reason, ai, fi)
			}
		}
	}
}

// everything: the action reaches every file in set of the root worktree.
func (c *classifier) everything(text string, action Action, reason Reason, set stateSet) {
	c.each(set, func(int, int, File) bool { return true }, text, action, reason)
}

// runAnything: the guard cannot read what runs; everything is at stake.
func (c *classifier) runAnything(text string, reason Reason) {
	c.everything(text, Run, reason, anyLive)
	for i := range c.sc.Worktrees {
		c.emit(text, Run, reason, -1-i, -1)
	}
}

// target is a path a file-writing command names, resolved to absolute.
type target struct {
	abs       string // cleaned; a pattern when glob
	glob      bool
	recursive bool // the command reaches below a directory it names
}

// onPaths: the action reaches the files the targets name, in the root
// worktree and in other presences' worktrees. Words computed at run time
// (ok false) make the action "cannot tell".
func (c *classifier) onPaths(text string, action Action, set stateSet, w *where, words []arg, recursive bool) {
	for _, a := range words {
		if !a.ok {
			c.everything(text, action, RuntimeList, set)
			continue
		}
		abs, ok := c.abs(w, a.s)
		if !ok {
			c.everything(text, action, UnknownDir, set)
			continue
		}
		c.onTarget(text, action, set, target{abs: abs, glob: a.glob, recursive: recursive})
	}
}

func (c *classifier) onTarget(text string, action Action, set stateSet, t target) {
	c.steps += len(t.abs)
	var tsegs []string
	if t.glob {
		tsegs = segments(t.abs)
	}
	c.each(set, func(_, _ int, f File) bool {
		abs := joinAbs(c.sc.Root, f.Path)
		if t.glob {
			return segsMatch(tsegs, segments(abs), t.recursive, &c.steps)
		}
		if t.recursive {
			return under(abs, t.abs)
		}
		return abs == t.abs
	}, text, action, Certain)
	for i, wt := range c.sc.Worktrees {
		c.steps++
		if c.reachesWorktree(t, tsegs, wt.Path) {
			c.emit(text, action, Certain, -1-i, -1)
		}
	}
}

// reachesWorktree: the target lies in the worktree, or (recursive) holds it.
func (c *classifier) reachesWorktree(t target, tsegs []string, wt string) bool {
	if !t.glob {
		return under(t.abs, wt) || (t.recursive && under(wt, t.abs))
	}
	wsegs := segments(wt)
	if len(tsegs) >= len(wsegs) {
		return segsMatch(tsegs[:len(wsegs)], wsegs, false, &c.steps)
	}
	return t.recursive && segsMatch(tsegs, wsegs, true, &c.steps)
}

func joinAbs(root, rel string) string {
	if root == "/" {
		return "/" + rel
	}
	return root + "/" + rel
}

func segments(abs string) []string {
	abs = strings.TrimPrefix(abs, "/")
	if abs == "" {
		return nil
	}
	return strings.Split(abs, "/")
}

// segsMatch matches a shell glob, segment by segment (a shell * never
// crosses a slash), against a path; recursive also matches a path below
// one the pattern names.
func segsMatch(pat, p []string, recursive bool, steps *int) bool {
	if len(p) < len(pat) || (len(p) > len(pat) && !recursive) {
		return false
	}
	for i := range pat {
		*steps += len(pat[i]) + len(p[i])
		if !wildmatch(pat[i], p[i]) {
			return false
		}
	}
	return true
}

// wildmatch is fnmatch without FNM_PATHNAME: * and ? match any byte, a
// slash too (git's default pathspec); [..] classes, \ escapes. Work is
// O(len(p)·len(s)): one star is retried at a time, never nested.
func wildmatch(p, s string) bool {
	pi, si := 0, 0
	star, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			switch p[pi] {
			case '*':
				star, starS = pi, si
				pi++
				continue
			case '?':
				pi++
				si++
				continue
			case '[':
				if n, hit, valid := class(p[pi:], s[si]); valid {
					if hit {
						pi += n
						si++
						continue
					}
				} else if s[si] == '[' {
					pi++
					si++
					continue
				}
			case '\\':
				if pi+1 < len(p) && p[pi+1] == s[si] {
					pi += 2
					si++
					continue
				}
			default:
				if p[pi] == s[si] {
					pi++
					si++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		pi = star + 1
		starS++
		si = starS
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// class matches one byte against the bracket expression starting p:
// its length, whether ch is in it, and whether it is a class at all.
func class(p string, ch byte) (n int, hit bool, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(p) {
		if p[i] == ']' && !first {
			return i + 1, hit != negate, true
		}
		first = false
		lo := p[i]
		if lo == '\\' && i+1 < len(p) {
			i++
			lo = p[i]
		}
		hi := lo
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			i += 2
		}
		if lo <= ch && ch <= hi {
			hit = true
		}
		i++
	}
	return 0, false, false
}

// pathspec is one git pathspec, relative to the worktree's root.
type pathspec struct {
	pat     string
	exclude bool
	wild    bool
	icase   bool
}

// pathspecs is a command's pathspec list. Unknown: one of them is
// computed at run time.
type pathspecs struct {
	include []pathspec
	exclude []pathspec
	unknown bool
}

func (ps pathspecs) empty() bool { return len(ps.include) == 0 && len(ps.exclude) == 0 && !ps.unknown }

func (ps pathspecs) match(file string, steps *int) bool {
	hit := len(ps.include) == 0 // only exclusions: the whole tree, less them
	for _, p := range ps.include {
		if p.match(file, steps) {
			hit = true
			break
		}
	}
	if !hit {
		return false
	}
	for _, p := range ps.exclude {
		if p.match(file, steps) {
			return false
		}
	}
	return true
}

func (p pathspec) match(file string, steps *int) bool {
	*steps += len(p.pat) + len(file)
	pat := p.pat
	if p.icase {
		pat, file = strings.ToLower(pat), strings.ToLower(file)
	}
	if under(file, pat) {
		return true
	}
	return p.wild && wildmatch(pat, file)
}

// onPathspecs: the action reaches the root worktree's files the pathspecs
// name (all of them when none is given and all is true).
func (c *classifier) onPathspecs(text string, action Action, set stateSet, ps pathspecs, all bool) {
	switch {
	case ps.unknown:
		c.everything(text, action, RuntimeList, set)
	case ps.empty():
		if all {
			c.everything(text, action, Certain, set)
		}
	default:
		c.each(set, func(_, _ int, f File) bool { return ps.match(f.Path, &c.steps) }, text, action, Certain)
	}
}

// knownPath reports whether rel (relative to the root) is a file of the
// scene or a directory holding one: how the guard tells `git checkout
// src` (a path) from `git checkout feature/x` (a branch) without git.
func (c *classifier) knownPath(rel string) bool {
	for _, w := range c.sc.Others {
		for _, f := range w.Files {
			c.steps++
			if under(f.Path, rel) {
				return true
			}
		}
	}
	for _, p := range c.sc.Own {
		c.steps++
		if under(p, rel) {
			return true
		}
	}
	return false
}

// cleanJoin joins a worktree-relative prefix and a relative path; false
// when the result climbs out of the worktree.
func cleanJoin(prefix, rel string) (string, bool) {
	p := path.Clean(prefix + "/" + rel)
	if prefix == "." || prefix == "" {
		p = path.Clean(rel)
	}
	if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	return p, true
}
