package shellguard

import (
	"strings"
)

// gitOpts is how one git subcommand's options read: which take a value
// (so the value is not taken for a pathspec).
type gitOpts struct {
	short string   // short options taking a value (-m msg, -mmsg)
	long  []string // long options taking a value when not given with =
}

// parsed is a git subcommand's arguments, read.
type parsed struct {
	flags  map[string]string // option → value ("" for a switch); short ones as "-x"
	pos    []arg             // words before "--" that are not options
	after  []arg             // words after "--"
	dashes bool              // "--" was given
}

func (p parsed) has(names ...string) bool {
	for _, n := range names {
		if _, ok := p.flags[n]; ok {
			return true
		}
	}
	return false
}

func (p parsed) value(names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := p.flags[n]; ok {
			return v, true
		}
	}
	return "", false
}

// parse reads args as git's parse-options does: clustered short switches
// (-am msg), values attached or next, --long=value, "--" ending options.
// A word computed at run time where an option could be is a positional.
func (o gitOpts) parse(args []arg) parsed {
	p := parsed{flags: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case p.dashes:
			p.after = append(p.after, a)
		case !a.ok || !strings.HasPrefix(a.s, "-") || a.s == "-":
			p.pos = append(p.pos, a)
		case a.s == "--":
			p.dashes = true
		case strings.HasPrefix(a.s, "--"):
			name, val, eq := strings.Cut(a.s, "=")
			if !eq && contains(o.long, name) && i+1 < len(args) {
				i++
				val = args[i].s
			}
			p.flags[name] = val
		default:
			for j := 1; j < len(a.s); j++ {
				name := "-" + a.s[j:j+1]
				if strings.IndexByte(o.short, a.s[j]) >= 0 {
					val := a.s[j+1:]
					if val == "" && i+1 < len(args) {
						i++
						val = args[i].s
					}
					p.flags[name] = val
					break
				}
				p.flags[name] = ""
			}
		}
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	optsAdd      = gitOpts{long: []string{"--chmod", "--pathspec-from-file"}}
	optsCommit   = gitOpts{short: "mFCctu", long: []string{"--message", "--file", "--reuse-message", "--reedit-message", "--fixup", "--squash", "--author", "--date", "--template", "--cleanup", "--trailer", "--pathspec-from-file"}}
	optsCheckout = gitOpts{short: "bB", long: []string{"--orphan", "--conflict", "--pathspec-from-file"}}
	optsSwitch   = gitOpts{short: "cC", long: []string{"--create", "--force-create", "--orphan", "--conflict"}}
	optsRestore  = gitOpts{short: "s", long: []string{"--source", "--pathspec-from-file", "--conflict"}}
	optsReset    = gitOpts{long: []string{"--pathspec-from-file"}}
	optsStash    = gitOpts{short: "m", long: []string{"--message", "--pathspec-from-file"}}
	optsClean    = gitOpts{short: "e", long: []string{"--exclude"}}
	optsRm       = gitOpts{long: []string{"--pathspec-from-file"}}
	optsMerge    = gitOpts{short: "msXSF", long: []string{"--message", "--strategy", "--strategy-option", "--file", "--into-name", "--cleanup", "--depth", "--gpg-sign", "--onto"}}
	optsWorktree = gitOpts{short: "bB", long: []string{"--reason", "--orphan"}}
	optsPlain    = gitOpts{}
)

// git classifies one git command: its global options (-C, --work-tree,
// -c), the worktree it runs in, then the subcommand.
func (c *classifier) git(args []arg, env envPrefix, w *where, text cmdText) {
	g := c.fork(w)
	gitDir := env.gitDir
	workTree := env.workTree
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.ok {
			c.runAnything(text, UnreadScript)
			return
		}
		if !strings.HasPrefix(a.s, "-") {
			break
		}
		switch {
		case a.s == "-C":
			if i+1 < len(args) {
				i++
				if args[i].ok && args[i].s == "" {
					continue // git -C "" stays put
				}
				c.chdir(g, args[i])
			}
		case a.s == "-c" || a.s == "--namespace" || a.s == "--config-env" || a.s == "--super-prefix":
			i++
		case a.s == "--git-dir":
			gitDir = true
			i++
		case strings.HasPrefix(a.s, "--git-dir="):
			gitDir = true
		case a.s == "--work-tree":
			if i+1 < len(args) {
				i++
				workTree = &args[i]
			}
		case strings.HasPrefix(a.s, "--work-tree="):
			workTree = &arg{s: strings.TrimPrefix(a.s, "--work-tree="), ok: true}
		}
	}
	if i >= len(args) {
		return
	}
	sub, rest := args[i], args[i+1:]
	if !sub.ok {
		c.runAnything(text, UnreadScript)
		return
	}
	if workTree != nil {
		if !workTree.ok {
			g.known = false
		} else {
			c.chdir(g, *workTree)
		}
	} else if gitDir {
		// GIT_DIR without a work tree: the worktree is the directory the
		// command runs in, of a repository the guard cannot place.
		g.known = false
	}
	eff := c.gitEffects(sub.s, rest, g)
	if len(eff) == 0 {
		return
	}
	c.applyGit(eff, g, text)
}

// gitEffect is one thing a git command does to a worktree's files.
type gitEffect struct {
	action Action
	set    stateSet
	specs  []arg // pathspecs as written, relative to the command's directory
	all    bool  // with no pathspec, the whole worktree
	unsure bool  // a file list read at run time (--pathspec-from-file)
	// worktree names a worktree the command removes or moves, as written.
	worktree *arg
}

// applyGit places the effects: in the root worktree they reach the
// others' files; in another presence's worktree the whole of it;
// elsewhere nothing; in a directory computed at run time, "cannot tell".
func (c *classifier) applyGit(effs []gitEffect, g *where, text cmdText) {
	for _, e := range effs {
		if e.worktree != nil {
			c.gitWorktreeTarget(e, g, text)
			continue
		}
		if !g.known {
			c.everything(text, e.action, UnknownDir, e.set)
			continue
		}
		for i, wt := range c.sc.Worktrees {
			if under(g.dir, wt.Path) {
				c.emit(text, e.action, Certain, -1-i, -1)
			}
		}
		if !under(g.dir, c.sc.Root) || c.inOtherWorktree(g.dir) {
			continue
		}
		if e.unsure {
			c.everything(text, e.action, RuntimeList, e.set)
			continue
		}
		c.onPathspecs(text, e.action, e.set, c.pathspecs(e.specs, relIn(c.sc.Root, g.dir)), e.all)
	}
}

// inOtherWorktree reports whether dir lies in another presence's worktree
// nested below the root.
func (c *classifier) inOtherWorktree(dir string) bool {
	for _, wt := range c.sc.Worktrees {
		if under(dir, wt.Path) {
			return true
		}
	}
	return false
}

// gitWorktreeTarget: git worktree remove/move names a worktree.
func (c *classifier) gitWorktreeTarget(e gitEffect, g *where, text cmdText) {
	a := *e.worktree
	if !a.ok {
		c.runAnything(text, RuntimeList)
		return
	}
	abs, ok := c.abs(g, a.s)
	if !ok {
		c.runAnything(text, UnknownDir)
		return
	}
	for i, wt := range c.sc.Worktrees {
		if abs == wt.Path {
			c.emit(text, e.action, Certain, -1-i, -1)
		}
	}
	if abs == c.sc.Root {
		c.everything(text, e.action, Certain, anyLive)
	}
}

// pathspecs reads git pathspecs relative to prefix (the command's
// directory in the worktree): magic (:/ :! :^ :(top,exclude,icase,glob,
// literal)), wildcards, directories.
func (c *classifier) pathspecs(specs []arg, prefix string) pathspecs {
	var ps pathspecs
	for _, a := range specs {
		c.steps += 1 + len(a.s)
		if !a.ok {
			ps.unknown = true
			continue
		}
		p := pathspec{wild: true}
		s, top := a.s, false
		if strings.HasPrefix(s, ":(") {
			end := strings.IndexByte(s, ')')
			if end < 0 {
				continue // git refuses it
			}
			for _, m := range strings.Split(s[2:end], ",") {
				switch m {
				case "top":
					top = true
				case "exclude":
					p.exclude = true
				case "icase":
					p.icase = true
				case "literal":
					p.wild = false
				default:
					// glob, attr:… and magic git may add later only narrow
					// what matches: read as matching more, the guard warns
					// rather than misses.
				}
			}
			s = s[end+1:]
		} else if strings.HasPrefix(s, ":") && len(s) > 1 {
			i := 1
			for ; i < len(s) && strings.IndexByte("/!^", s[i]) >= 0; i++ {
				switch s[i] {
				case '/':
					top = true
				default:
					p.exclude = true
				}
			}
			if i < len(s) && s[i] == ':' {
				i++
			}
			s = s[i:]
		}
		if s == "" {
			s = "."
		}
		base := prefix
		if top {
			base = "."
		}
		rel, ok := cleanJoin(base, s)
		if !ok {
			continue
		}
		p.wild = p.wild && strings.ContainsAny(rel, "*?[")
		p.pat = rel
		if p.exclude {
			ps.exclude = append(ps.exclude, p)
		} else {
			ps.include = append(ps.include, p)
		}
	}
	return ps
}

// looksLikePath tells a path from a revision for commands that take
// either (git checkout X, git reset X): a path when it is written as one
// (., ./x, ../x, /x, pathspec magic, wildcards, a trailing /) or names a
// file or directory of the scene; otherwise a revision.
func (c *classifier) looksLikePath(a arg, g *where) bool {
	if !a.ok {
		return true
	}
	s := a.s
	if s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") ||
		strings.HasPrefix(s, "/") || strings.HasPrefix(s, ":") || strings.HasSuffix(s, "/") ||
		strings.ContainsAny(s, "*?[") {
		return true
	}
	if !g.known || !under(g.dir, c.sc.Root) {
		return false
	}
	rel, ok := cleanJoin(relIn(c.sc.Root, g.dir), s)
	return ok && c.knownPath(rel)
}

// isHead reports whether a revision names the commit already checked out.
func (c *classifier) isHead(a arg) bool {
	return a.ok && (a.s == "HEAD" || a.s == "@" || (c.sc.Branch != "" && a.s == c.sc.Branch))
}

// gitEffects is what one git subcommand does; nil when it only reads.
func (c *classifier) gitEffects(sub string, rest []arg, g *where) []gitEffect {
	c.steps++
	switch sub {
	case "add", "stage":
		return c.gitAdd(optsAdd.parse(rest))
	case "commit":
		return c.gitCommit(optsCommit.parse(rest))
	case "checkout":
		return c.gitCheckout(optsCheckout.parse(rest), g)
	case "switch":
		return c.gitSwitch(optsSwitch.parse(rest))
	case "restore":
		return c.gitRestore(optsRestore.parse(rest))
	case "reset":
		return c.gitReset(optsReset.parse(rest), g)
	case "stash":
		return c.gitStash(rest)
	case "clean":
		p := optsClean.parse(rest)
		if p.has("-n", "--dry-run") || !p.has("-f", "--force", "-i", "--interactive") {
			return nil // git refuses to clean without -f (clean.requireForce)
		}
		return []gitEffect{{action: Delete, set: states(Seen, Untracked), specs: append(p.pos, p.after...), all: true}}
	case "rm":
		p := optsRm.parse(rest)
		if p.has("-n", "--dry-run") {
			return nil
		}
		specs := append(p.pos, p.after...)
		if p.has("--cached") {
			return []gitEffect{{action: Unstage, set: tracked, specs: specs, unsure: p.has("--pathspec-from-file")}}
		}
		return []gitEffect{{action: Delete, set: tracked, specs: specs, unsure: p.has("--pathspec-from-file")}}
	case "mv":
		p := optsPlain.parse(rest)
		if p.has("-n", "--dry-run") {
			return nil
		}
		specs := append(p.pos, p.after...)
		if len(specs) < 2 {
			return nil
		}
		return []gitEffect{{action: Move, set: tracked, specs: specs[:len(specs)-1]}}
	case "pull", "merge", "rebase", "cherry-pick", "revert", "am", "bisect", "filter-branch":
		return c.gitMoveBranch(sub, rest)
	case "worktree":
		return c.gitWorktree(rest)
	case "apply":
		p := optsPlain.parse(rest)
		if p.has("--check", "--stat", "--numstat", "--summary") {
			return nil
		}
		if p.has("--cached") {
			return []gitEffect{{action: Stage, set: tracked, all: true, unsure: true}}
		}
		return []gitEffect{{action: Overwrite, set: anyLive, all: true, unsure: true}}
	}
	return nil
}

func (c *classifier) gitAdd(p parsed) []gitEffect {
	if p.has("-n", "--dry-run", "--refresh") {
		return nil
	}
	specs := append(p.pos, p.after...)
	unsure := p.has("--pathspec-from-file")
	switch {
	case p.has("-u", "--update"):
		return []gitEffect{{action: Stage, set: states(Seen, Modified), specs: specs, all: true, unsure: unsure}}
	case p.has("-A", "--all", "--no-ignore-removal"):
		return []gitEffect{{action: Stage, set: states(Seen, Modified, Untracked), specs: specs, all: true, unsure: unsure}}
	case p.has("-p", "--patch", "-i", "--interactive", "-e", "--edit"):
		return []gitEffect{{action: Stage, set: states(Seen, Modified), specs: specs, all: true, unsure: unsure}}
	}
	return []gitEffect{{action: Stage, set: states(Seen, Modified, Untracked), specs: specs, unsure: unsure}}
}

func (c *classifier) gitCommit(p parsed) []gitEffect {
	if p.has("--dry-run") {
		return nil
	}
	specs := append(p.pos, p.after...)
	unsure := p.has("--pathspec-from-file")
	switch {
	case p.has("-a", "--all"):
		return []gitEffect{{action: Commit, set: tracked, all: true}}
	case len(specs) > 0 || unsure:
		// git commit <paths>: those paths as they are in the worktree
		// (plus, with -i, what is staged).
		effs := []gitEffect{{action: Commit, set: tracked, specs: specs, unsure: unsure}}
		if p.has("-i", "--include") {
			effs = append(effs, gitEffect{action: Commit, set: states(Seen, Staged), all: true})
		}
		return effs
	case p.has("-p", "--patch", "--interactive"):
		return []gitEffect{{action: Commit, set: tracked, all: true}}
	}
	return []gitEffect{{action: Commit, set: states(Seen, Staged), all: true}}
}

func (c *classifier) gitCheckout(p parsed, g *where) []gitEffect {
	var effs []gitEffect
	force := p.has("-f", "--force")
	if _, ok := p.value("-b", "-B", "--orphan"); ok {
		// A new branch at HEAD keeps every change in place; at another
		// start point it moves them.
		if len(p.pos) > 0 && !c.isHead(p.pos[0]) {
			effs = append(effs, gitEffect{action: MoveBranch, set: tracked, all: true})
		}
		if force {
			effs = append(effs, gitEffect{action: Discard, set: tracked, all: true})
		}
		return effs
	}
	if p.has("-p", "--patch") {
		return []gitEffect{{action: Discard, set: tracked, specs: pathsOf(p, 1), all: true}}
	}
	if p.dashes {
		// [<tree-ish>] -- <paths>
		return []gitEffect{{action: Discard, set: tracked, specs: p.after, unsure: p.has("--pathspec-from-file")}}
	}
	if len(p.pos) == 0 {
		if p.has("--pathspec-from-file") {
			return []gitEffect{{action: Discard, set: tracked, all: true, unsure: true}}
		}
		return nil // git checkout: shows what is changed
	}
	if c.looksLikePath(p.pos[0], g) {
		return []gitEffect{{action: Discard, set: tracked, specs: p.pos}}
	}
	if len(p.pos) > 1 {
		// <tree-ish> <paths>
		return []gitEffect{{action: Discard, set: tracked, specs: p.pos[1:]}}
	}
	if !c.isHead(p.pos[0]) || p.has("--detach") {
		if !(p.has("--detach") && c.isHead(p.pos[0])) {
			effs = append(effs, gitEffect{action: MoveBranch, set: tracked, all: true})
		}
	}
	if force {
		effs = append(effs, gitEffect{action: Discard, set: tracked, all: true})
	}
	return effs
}

// pathsOf is the pathspecs of a command taking [<rev>] [--] <paths>.
func pathsOf(p parsed, skip int) []arg {
	if p.dashes {
		return p.after
	}
	if len(p.pos) <= skip {
		return nil
	}
	return p.pos[skip:]
}

func (c *classifier) gitSwitch(p parsed) []gitEffect {
	var effs []gitEffect
	if p.has("-f", "--force", "--discard-changes") {
		effs = append(effs, gitEffect{action: Discard, set: tracked, all: true})
	}
	if p.has("--orphan") {
		// An orphan branch starts with no tracked file: the changes go.
		return append(effs, gitEffect{action: Discard, set: tracked, all: true})
	}
	if _, ok := p.value("-c", "-C", "--create", "--force-create"); ok {
		if len(p.pos) > 0 && !c.isHead(p.pos[0]) {
			effs = append(effs, gitEffect{action: MoveBranch, set: tracked, all: true})
		}
		return effs
	}
	if len(p.pos) > 0 && !c.isHead(p.pos[0]) {
		effs = append(effs, gitEffect{action: MoveBranch, set: tracked, all: true})
	}
	return effs
}

func (c *classifier) gitRestore(p parsed) []gitEffect {
	specs := append(p.pos, p.after...)
	unsure := p.has("--pathspec-from-file")
	staged := p.has("-S", "--staged")
	worktree := p.has("-W", "--worktree") || !staged
	if len(specs) == 0 && !unsure && !p.has("-p", "--patch") {
		return nil // git restore wants a pathspec
	}
	all := p.has("-p", "--patch") && len(specs) == 0
	if worktree {
		return []gitEffect{{action: Discard, set: tracked, specs: specs, all: all, unsure: unsure}}
	}
	return []gitEffect{{action: Unstage, set: states(Seen, Staged), specs: specs, all: all, unsure: unsure}}
}

func (c *classifier) gitReset(p parsed, g *where) []gitEffect {
	var rev *arg
	specs := p.after
	if len(p.pos) > 0 {
		if p.dashes || !c.looksLikePath(p.pos[0], g) {
			rev = &p.pos[0]
			specs = append(append([]arg(nil), p.pos[1:]...), p.after...)
		} else {
			specs = append(append([]arg(nil), p.pos...), p.after...)
		}
	}
	unsure := p.has("--pathspec-from-file")
	if len(specs) > 0 || unsure || p.has("-p", "--patch") {
		return []gitEffect{{action: Unstage, set: states(Seen, Staged), specs: specs, all: len(specs) == 0, unsure: unsure}}
	}
	moves := rev != nil && !c.isHead(*rev)
	var effs []gitEffect
	switch {
	case p.has("--hard", "--merge"):
		effs = append(effs, gitEffect{action: Discard, set: tracked, all: true})
	case p.has("--soft", "--keep"):
	default:
		effs = append(effs, gitEffect{action: Unstage, set: states(Seen, Staged), all: true})
	}
	if moves {
		effs = append(effs, gitEffect{action: MoveBranch, set: tracked, all: true})
	}
	return effs
}

func (c *classifier) gitStash(rest []arg) []gitEffect {
	if len(rest) > 0 && rest[0].ok && !strings.HasPrefix(rest[0].s, "-") {
		switch rest[0].s {
		case "push":
			rest = rest[1:]
		case "save":
			p := optsStash.parse(rest[1:])
			return []gitEffect{{action: Stash, set: stashSet(p), all: true}}
		default:
			return nil // pop, apply, list, show, drop, clear, branch, create, store
		}
	}
	p := optsStash.parse(rest)
	specs := append(p.pos, p.after...)
	return []gitEffect{{action: Stash, set: stashSet(p), specs: specs, all: true, unsure: p.has("--pathspec-from-file")}}
}

func stashSet(p parsed) stateSet {
	switch {
	case p.has("-S", "--staged"):
		return states(Seen, Staged)
	case p.has("-u", "--include-untracked", "-a", "--all"):
		return anyLive
	}
	return tracked
}

// gitMoveBranch: pull, merge, rebase, cherry-pick, revert, am, bisect move
// the branch (or the files) under uncommitted work; --abort puts the
// worktree back as it was before, which throws away what changed since.
func (c *classifier) gitMoveBranch(sub string, rest []arg) []gitEffect {
	p := optsMerge.parse(rest)
	switch {
	case p.has("--abort"):
		return []gitEffect{{action: Discard, set: tracked, all: true}}
	case p.has("--quit", "--show-current-patch", "--edit-todo", "-h", "--help", "--dry-run"):
		return nil
	}
	if sub == "bisect" && len(p.pos) > 0 && p.pos[0].ok {
		switch p.pos[0].s {
		case "log", "visualize", "view", "help", "terms":
			return nil
		}
	}
	return []gitEffect{{action: MoveBranch, set: tracked, all: true}}
}

func (c *classifier) gitWorktree(rest []arg) []gitEffect {
	if len(rest) == 0 || !rest[0].ok {
		return nil
	}
	p := optsWorktree.parse(rest[1:])
	targets := append(p.pos, p.after...)
	if len(targets) == 0 {
		return nil
	}
	switch rest[0].s {
	case "remove":
		return []gitEffect{{action: Delete, worktree: &targets[0]}}
	case "move":
		return []gitEffect{{action: Move, worktree: &targets[0]}}
	}
	return nil
}
