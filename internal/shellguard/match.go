package shellguard

import (
	"path"
	"strings"
	"unsafe"
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

// has reports whether an action reaching set reaches a file in state s.
// A file staged and changed again holds two changes: it is reached by
// whatever reaches either.
func (set stateSet) has(s State) bool {
	if s == StagedModified {
		return set&(1<<Staged|1<<Modified) != 0
	}
	return set&(1<<s) != 0
}

var (
	// tracked: what git sees as a change to a tracked file (Seen may be one).
	tracked = states(Seen, Modified, Staged)
	// anyLive: every state that still holds uncommitted work.
	anyLive = states(Seen, Modified, Staged, Untracked)
)

// emit records that the command text would do action to file fi of
// agent ai (fi < 0: the agent's whole work is named by Worktree).
func (c *classifier) emit(text cmdText, action Action, reason Reason, ai, fi int) {
	c.steps++
	cmd := c.shown(text) // bounded: a long span is never hashed whole
	key := findingKey{cmd: cmd, action: action, reason: reason, agent: ai}
	n, ok := c.seen[key]
	if !ok {
		if len(c.findings) == MaxFindings {
			c.more++
			c.seen[key] = -1
			return
		}
		f := Finding{Command: cmd, Action: action, Reason: reason}
		if ai >= 0 {
			f.AgentID, f.Theme = c.sc.Others[ai].AgentID, c.sc.Others[ai].Theme
		} else {
			wt := c.sc.Worktrees[-1-ai]
			f.AgentID, f.Theme, f.Worktree = wt.AgentID, wt.Theme, wt.Path
		}
		n = len(c.findings)
		c.seen[key] = n
		c.findings = append(c.findings, f)
		c.filesIn = append(c.filesIn, 0)
	}
	if action == Stage && reason == Certain && ai >= 0 && fi >= 0 {
		// Staged now: a commit later on the same line takes it.
		c.staged[[2]int{ai, fi}] = true
	}
	if n < 0 || fi < 0 || c.filesIn[n]&(1<<fi) != 0 {
		return
	}
	c.filesIn[n] |= 1 << fi
	c.findings[n].Files = append(c.findings[n].Files, c.sc.Others[ai].Files[fi])
}

// shown is the command as a finding shows it (cmdText.String), clipped
// once for the command: one command can reach every file of the scene,
// and a line too long to read is one command reaching all of them.
func (c *classifier) shown(t cmdText) string {
	if len(t.span) != len(c.shownSpan) || unsafe.StringData(t.span) != unsafe.StringData(c.shownSpan) {
		c.shownSpan, c.shownText = t.span, t.String()
	}
	return c.shownText
}

// each calls fn for every other presence's file whose state is in set.
func (c *classifier) each(set stateSet, fn func(ai, fi int, f File) bool, text cmdText, action Action, reason Reason) {
	for ai, w := range c.sc.Others {
		for fi, f := range w.Files {
			c.steps += 1 + len(f.Path)
			if (set.has(f.State) || (set.has(Staged) && c.staged[[2]int{ai, fi}])) && fn(ai, fi, f) {
				c.emit(text, action, reason, ai, fi)
			}
		}
	}
}

// everything: the action reaches every file in set of the root worktree.
func (c *classifier) everything(text cmdText, action Action, reason Reason, set stateSet) {
	c.each(set, func(int, int, File) bool { return true }, text, action, reason)
}

// runAnything: the guard cannot read what runs; everything is at stake.
func (c *classifier) runAnything(text cmdText, reason Reason) {
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
func (c *classifier) onPaths(text cmdText, action Action, set stateSet, w *where, words []arg, recursive bool) {
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

func (c *classifier) onTarget(text cmdText, action Action, set stateSet, t target) {
	c.steps += len(t.abs)
	var tsegs []string
	if t.glob {
		tsegs = segments(t.abs)
	}
	c.each(set, func(ai, fi int, _ File) bool {
		abs := c.absFile(ai, fi)
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
		if !wildmatch(pat[i], p[i], steps) {
			return false
		}
	}
	return true
}

// wildmatch is fnmatch without FNM_PATHNAME: * and ? match any byte, a
// slash too (git's default pathspec); [..] classes, \ escapes. The
// pattern is read into tokens once, so each step is O(1) and the match
// O(len(p)·len(s)): one star is retried at a time, never nested. steps
// counts the work.
func wildmatch(p, s string, steps *int) bool {
	*steps += len(p)
	t := tokens(p)
	ti, si := 0, 0
	star, starS := -1, 0
	for si < len(s) {
		*steps++
		if ti < len(t) {
			switch k := t[ti]; k.kind {
			case tokStar:
				star, starS = ti, si
				ti++
				continue
			case tokAny:
				ti++
				si++
				continue
			case tokByte:
				if k.b == s[si] {
					ti++
					si++
					continue
				}
			case tokClass:
				if k.set.has(s[si]) {
					ti++
					si++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		ti = star + 1
		starS++
		si = starS
	}
	for ti < len(t) && t[ti].kind == tokStar {
		ti++
	}
	return ti == len(t)
}

const (
	tokByte = iota
	tokAny
	tokStar
	tokClass
)

type byteSet [4]uint64

func (b *byteSet) add(c byte)      { b[c>>6] |= 1 << (c & 63) }
func (b *byteSet) has(c byte) bool { return b[c>>6]&(1<<(c&63)) != 0 }
func (b *byteSet) invert()         { b[0], b[1], b[2], b[3] = ^b[0], ^b[1], ^b[2], ^b[3] }
func (b *byteSet) addRange(lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		b.add(byte(c))
	}
}

type token struct {
	kind uint8
	b    byte
	set  *byteSet
}

// tokens reads a pattern once. A [ with no closing ] is a plain byte; once
// one is found unclosed, every later [ is too (no ] follows), so the read
// stays linear.
func tokens(p string) []token {
	out := make([]token, 0, len(p))
	unclosed := false
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*':
			if n := len(out); n > 0 && out[n-1].kind == tokStar {
				continue
			}
			out = append(out, token{kind: tokStar})
		case '?':
			out = append(out, token{kind: tokAny})
		case '\\':
			if i+1 < len(p) {
				i++
			}
			out = append(out, token{kind: tokByte, b: p[i]})
		case '[':
			if !unclosed {
				if set, end, ok := readClass(p, i); ok {
					out = append(out, token{kind: tokClass, set: set})
					i = end
					continue
				}
				unclosed = true
			}
			out = append(out, token{kind: tokByte, b: '['})
		default:
			out = append(out, token{kind: tokByte, b: p[i]})
		}
	}
	return out
}

// readClass reads the bracket expression at p[i]: its set and the index of
// its closing ].
func readClass(p string, i int) (*byteSet, int, bool) {
	set := &byteSet{}
	j := i + 1
	negate := j < len(p) && (p[j] == '!' || p[j] == '^')
	if negate {
		j++
	}
	for first := true; j < len(p); j++ {
		if p[j] == ']' && !first {
			if negate {
				set.invert()
			}
			return set, j, true
		}
		first = false
		lo := p[j]
		if lo == '\\' && j+1 < len(p) {
			j++
			lo = p[j]
		}
		if j+2 < len(p) && p[j+1] == '-' && p[j+2] != ']' {
			set.addRange(lo, p[j+2])
			j += 2
			continue
		}
		set.add(lo)
	}
	return nil, 0, false
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
	*steps += min(len(p.pat), len(file)) + 1
	pat := p.pat
	if p.icase {
		pat, file = strings.ToLower(pat), strings.ToLower(file)
	}
	if under(file, pat) {
		return true
	}
	return p.wild && wildmatch(pat, file, steps)
}

// onPathspecs: the action reaches the root worktree's files the pathspecs
// name (all of them when none is given and all is true).
func (c *classifier) onPathspecs(text cmdText, action Action, set stateSet, ps pathspecs, all bool) {
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
