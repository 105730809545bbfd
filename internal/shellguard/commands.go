package shellguard

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// simple classifies one simple command (its words read, its substitutions
// already walked).
func (c *classifier) simple(args []arg, env envPrefix, w *where, text cmdText) {
	c.steps++
	if len(args) == 0 {
		return
	}
	name := args[0]
	if !name.ok {
		c.runAnything(text, UnreadScript)
		return
	}
	rest := args[1:]
	switch path.Base(name.s) {
	case "cd", "pushd":
		c.cd(path.Base(name.s), rest, w)
	case "popd":
		if n := len(w.stack); n > 0 {
			w.dir, w.known = w.stack[n-1], true
			w.stack = w.stack[:n-1]
		} else {
			w.known = false
		}
	case "git":
		c.git(rest, env, w, text)
	case "sh", "bash", "zsh", "dash", "ksh", "mksh":
		c.shell(rest, w, text)
	case "eval":
		c.eval(rest, w, text)
	case "env":
		c.env(rest, env, w, text)
	case "sudo", "doas":
		c.wrapped(rest, "ugCDhprtU", env, w, text)
	case "command":
		if len(rest) > 0 && rest[0].ok && (rest[0].s == "-v" || rest[0].s == "-V") {
			return // looks a command up, runs nothing
		}
		c.wrapped(rest, "", env, w, text)
	case "builtin", "nohup", "unbuffer":
		c.wrapped(rest, "", env, w, text)
	case "exec":
		c.wrapped(rest, "a", env, w, text)
	case "time":
		if o := timeOutput(rest); o != nil {
			c.onPaths(text, Overwrite, anyLive, w, []arg{*o}, false)
		}
		c.wrapped(rest, "of", env, w, text)
	case "nice":
		c.wrapped(rest, "n", env, w, text)
	case "stdbuf":
		c.wrapped(rest, "ioe", env, w, text)
	case "timeout":
		c.timeout(rest, env, w, text)
	case "xargs":
		c.xargs(rest, env, w, text)
	case "find":
		c.find(rest, env, w, text)
	case "rm", "unlink":
		c.rm(rest, w, text)
	case "shred":
		c.onPaths(text, Overwrite, anyLive, w, positional(rest, "nsx"), false)
	case "mv":
		c.mvcp(rest, true, w, text)
	case "cp", "install":
		c.mvcp(rest, false, w, text)
	case "ln":
		c.ln(rest, w, text)
	case "sed":
		c.inPlace(sedEditor, rest, w, text)
	case "perl":
		c.inPlace(perlEditor, rest, w, text)
	case "truncate":
		c.onPaths(text, Overwrite, anyLive, w, positional(rest, "sr"), false)
	case "tee":
		c.onPaths(text, Overwrite, anyLive, w, positional(rest, ""), false)
	case "dd":
		c.dd(rest, w, text)
	case "gofmt", "goimports":
		c.gofmt(rest, w, text)
	case "go":
		c.gotool(rest, w, text)
	case "patch":
		if !hasFlag(rest, "--dry-run") {
			c.everything(text, Overwrite, RuntimeList, anyLive)
		}
	}
}

// cd moves the walk's directory; pushd keeps the old one for popd.
func (c *classifier) cd(name string, rest []arg, w *where) {
	var to *arg
	for i := range rest {
		a := rest[i]
		if a.ok && a.s == "--" {
			if i+1 < len(rest) {
				to = &rest[i+1]
			}
			break
		}
		if a.ok && strings.HasPrefix(a.s, "-") && len(a.s) > 1 {
			continue // -L, -P, -e, -@
		}
		to = &rest[i]
		break
	}
	if name == "pushd" {
		if len(w.stack) >= maxDirStack || !w.known {
			w.known = false
			return
		}
		w.stack = append(w.stack, w.dir)
	}
	if to == nil {
		if c.sc.Home == "" || name == "pushd" {
			w.known = false
			return
		}
		w.dir, w.known = c.sc.Home, true
		return
	}
	c.chdir(w, *to)
}

// shell reads `sh -c 'script'` (also -lc, -ec, -xc, -o opt): the script is
// walked as a line of its own, nested. A script file (sh x.sh) is not read.
func (c *classifier) shell(rest []arg, w *where, text cmdText) {
	hasC := false
	i := 0
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.ok {
			break
		}
		if a.s == "--" || a.s == "-" {
			i++
			break
		}
		if !strings.HasPrefix(a.s, "-") && !strings.HasPrefix(a.s, "+") {
			break
		}
		if strings.HasPrefix(a.s, "--") {
			continue // --login, --norc, --noprofile…
		}
		if strings.ContainsRune(a.s[1:], 'c') {
			hasC = true
		}
		if strings.ContainsAny(a.s[1:], "oO") && i+1 < len(rest) {
			i++ // -o pipefail
		}
	}
	if !hasC || i >= len(rest) {
		return
	}
	if !rest[i].ok {
		c.runAnything(text, UnreadScript)
		return
	}
	c.script(rest[i].s, c.fork(w), text)
}

// eval joins its words and reads them as a line.
func (c *classifier) eval(rest []arg, w *where, text cmdText) {
	parts := make([]string, 0, len(rest))
	for _, a := range rest {
		if !a.ok {
			c.runAnything(text, UnreadScript)
			return
		}
		parts = append(parts, a.s)
	}
	c.script(strings.Join(parts, " "), w, text)
}

// env runs a command with assignments (and perhaps -C dir).
func (c *classifier) env(rest []arg, env envPrefix, w *where, text cmdText) {
	w = c.fork(w)
	i := 0
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.ok {
			break
		}
		switch {
		case a.s == "--":
			i++
		case a.s == "-u" || a.s == "--unset":
			i++
			continue
		case a.s == "-C" || a.s == "--chdir":
			if i+1 < len(rest) {
				c.chdir(w, rest[i+1])
			}
			i++
			continue
		case a.s == "-S" || a.s == "--split-string":
			if i+1 < len(rest) {
				c.eval(rest[i+1:], w, text)
			}
			return
		case strings.HasPrefix(a.s, "-"):
			continue
		case strings.Contains(a.s, "="):
			k, v, _ := strings.Cut(a.s, "=")
			switch k {
			case "GIT_DIR":
				env.gitDir = true
			case "GIT_WORK_TREE":
				env.workTree = &arg{s: v, ok: true}
			}
			continue
		}
		break
	}
	if i < len(rest) {
		c.simple(rest[i:], env, w, text)
	}
}

// wrapped runs the command after the wrapper's options; valued names the
// short options that take a value.
func (c *classifier) wrapped(rest []arg, valued string, env envPrefix, w *where, text cmdText) {
	i := 0
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.ok || !strings.HasPrefix(a.s, "-") || a.s == "-" {
			break
		}
		if a.s == "--" {
			i++
			break
		}
		if len(a.s) == 2 && strings.IndexByte(valued, a.s[1]) >= 0 {
			i++
		}
	}
	c.simple(rest[i:], env, w, text)
}

// timeOutput is the file /usr/bin/time -o writes, if any.
func timeOutput(rest []arg) *arg {
	for i := 0; i+1 < len(rest); i++ {
		a := rest[i]
		if !a.ok || !strings.HasPrefix(a.s, "-") {
			return nil
		}
		if a.s == "-o" || a.s == "--output" {
			return &rest[i+1]
		}
	}
	return nil
}

// timeout DURATION COMMAND…, after its options.
func (c *classifier) timeout(rest []arg, env envPrefix, w *where, text cmdText) {
	i := 0
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.ok || !strings.HasPrefix(a.s, "-") {
			break
		}
		if a.s == "-s" || a.s == "-k" || a.s == "--signal" || a.s == "--kill-after" {
			i++
		}
	}
	if i+1 < len(rest) {
		c.simple(rest[i+1:], env, w, text)
	}
}

// xargs runs its command with words read at run time appended: whatever
// that command would do to files, the guard cannot tell to which.
func (c *classifier) xargs(rest []arg, env envPrefix, w *where, text cmdText) {
	i := 0
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.ok || !strings.HasPrefix(a.s, "-") {
			break
		}
		if a.s == "--" {
			i++
			break
		}
		if len(a.s) == 2 && strings.IndexByte("nLIPsdaE", a.s[1]) >= 0 {
			i++
		}
	}
	if i >= len(rest) {
		return // echo
	}
	cmd := append(append([]arg(nil), rest[i:]...), unknownArg)
	c.simple(cmd, env, w, text)
}

// find runs -exec/-execdir/-ok commands on files found at run time, and
// -delete deletes them.
func (c *classifier) find(rest []arg, env envPrefix, w *where, text cmdText) {
	var roots []arg
	i := 0
	for ; i < len(rest); i++ {
		a := rest[i]
		if a.ok && (strings.HasPrefix(a.s, "-") || a.s == "(" || a.s == "!") {
			break
		}
		roots = append(roots, a)
	}
	if len(roots) == 0 {
		roots = []arg{{s: ".", ok: true}}
	}
	for ; i < len(rest); i++ {
		a := rest[i]
		if !a.ok {
			continue
		}
		switch a.s {
		case "-delete":
			c.foundUnder(text, Delete, w, roots)
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(rest) && !(rest[j].ok && (rest[j].s == ";" || rest[j].s == "+")) {
				j++
			}
			cmd := make([]arg, 0, j-i)
			for _, x := range rest[i+1 : j] {
				if x.ok && strings.Contains(x.s, "{}") {
					x = unknownArg
				}
				cmd = append(cmd, x)
			}
			c.simple(cmd, env, w, text)
			i = j
		}
	}
}

// foundUnder: the action reaches files found under roots at run time:
// "cannot tell" for every file under them.
func (c *classifier) foundUnder(text cmdText, action Action, w *where, roots []arg) {
	for _, r := range roots {
		if !r.ok {
			c.everything(text, action, RuntimeList, anyLive)
			continue
		}
		abs, ok := c.abs(w, r.s)
		if !ok {
			c.everything(text, action, UnknownDir, anyLive)
			continue
		}
		c.each(anyLive, func(ai, fi int, _ File) bool {
			return under(c.absFile(ai, fi), abs)
		}, text, action, RuntimeList)
		for i, wt := range c.sc.Worktrees {
			if under(wt.Path, abs) || under(abs, wt.Path) {
				c.emit(text, action, RuntimeList, -1-i, -1)
			}
		}
	}
}

// positional is the words that are not options (nor their values, for the
// short options named in valued). After "--" every word is positional.
func positional(rest []arg, valued string) []arg {
	var out []arg
	opts := true
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if opts && a.ok && a.s == "--" {
			opts = false
			continue
		}
		if opts && a.ok && strings.HasPrefix(a.s, "-") && a.s != "-" {
			if !strings.HasPrefix(a.s, "--") && len(a.s) == 2 && strings.IndexByte(valued, a.s[1]) >= 0 {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// hasFlag reports whether one of the words is exactly one of flags.
func hasFlag(rest []arg, flags ...string) bool {
	for _, a := range rest {
		if !a.ok {
			continue
		}
		if a.s == "--" {
			return false
		}
		for _, f := range flags {
			if a.s == f {
				return true
			}
		}
	}
	return false
}

// shortFlag reports whether a short option letter appears, alone or in a
// cluster (-rf), or as one of the long names.
func shortFlag(rest []arg, letter byte, long ...string) bool {
	for _, a := range rest {
		if !a.ok {
			continue
		}
		if a.s == "--" {
			return false
		}
		if strings.HasPrefix(a.s, "--") {
			for _, l := range long {
				if a.s == l {
					return true
				}
			}
			continue
		}
		if strings.HasPrefix(a.s, "-") && strings.IndexByte(a.s[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

func (c *classifier) rm(rest []arg, w *where, text cmdText) {
	recursive := shortFlag(rest, 'r', "--recursive") || shortFlag(rest, 'R')
	c.onPaths(text, Delete, anyLive, w, positional(rest, ""), recursive)
}

// mvcp: mv moves its sources away and writes its destination; cp writes
// its destination. The destination is a directory when -t names it, when
// there are several sources, or when it ends in / or is a directory the
// scene knows; then each source lands under it by its base name.
func (c *classifier) mvcp(rest []arg, moves bool, w *where, text cmdText) {
	var dir *arg
	var words []arg
	noClobber := false
	recursive := !moves && (shortFlag(rest, 'r', "--recursive") || shortFlag(rest, 'R') || shortFlag(rest, 'a', "--archive"))
	opts := true
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case opts && a.ok && a.s == "--":
			opts = false
		case opts && a.ok && (a.s == "-t" || a.s == "--target-directory"):
			if i+1 < len(rest) {
				dir = &rest[i+1]
				i++
			}
		case opts && a.ok && strings.HasPrefix(a.s, "--target-directory="):
			dir = &arg{s: strings.TrimPrefix(a.s, "--target-directory="), ok: true}
		case opts && a.ok && strings.HasPrefix(a.s, "-") && a.s != "-":
			if a.s == "--no-clobber" || (!strings.HasPrefix(a.s, "--") && strings.IndexByte(a.s, 'n') > 0) {
				noClobber = true
			}
			if !strings.HasPrefix(a.s, "--") && len(a.s) == 2 && strings.IndexByte("Smog", a.s[1]) >= 0 {
				i++ // -S SUFFIX; install's -m MODE, -o OWNER, -g GROUP
			}
		default:
			words = append(words, a)
		}
	}
	srcs := words
	if dir == nil {
		if len(words) < 2 {
			return
		}
		srcs = words[:len(words)-1]
		d := words[len(words)-1]
		if len(srcs) > 1 || (d.ok && (strings.HasSuffix(d.s, "/") || c.isDir(w, d))) {
			dir = &d
		} else if !noClobber {
			c.onPaths(text, Overwrite, anyLive, w, []arg{d}, recursive)
		}
	}
	if moves {
		c.onPaths(text, Move, anyLive, w, srcs, true)
	}
	if dir == nil || noClobber {
		return
	}
	for _, s := range srcs {
		if !s.ok || !dir.ok {
			c.onPaths(text, Overwrite, anyLive, w, []arg{unknownArg}, false)
			continue
		}
		if s.glob {
			// The names landing in dir are found at run time.
			c.onPaths(text, Overwrite, anyLive, w, []arg{{s: strings.TrimSuffix(dir.s, "/") + "/*", ok: true, glob: true}}, true)
			continue
		}
		into := arg{s: strings.TrimSuffix(dir.s, "/") + "/" + path.Base(s.s), ok: true, glob: dir.glob}
		c.onPaths(text, Overwrite, anyLive, w, []arg{into}, recursive || moves)
	}
}

// isDir reports whether a word names a directory the scene knows of: one
// holding a file of the scene, or a worktree.
func (c *classifier) isDir(w *where, a arg) bool {
	abs, ok := c.abs(w, a.s)
	if !ok {
		return false
	}
	if abs == c.sc.Root || under(c.sc.Root, abs) {
		return true
	}
	for _, wt := range c.sc.Worktrees {
		if under(wt.Path, abs) {
			return true
		}
	}
	if !under(abs, c.sc.Root) {
		return false
	}
	rel := relIn(c.sc.Root, abs)
	for _, wk := range c.sc.Others {
		for _, f := range wk.Files {
			c.steps++
			if f.Path != rel && under(f.Path, rel) {
				return true
			}
		}
	}
	for _, p := range c.sc.Own {
		c.steps++
		if p != rel && under(p, rel) {
			return true
		}
	}
	return false
}

// ln -f writes over its link name.
func (c *classifier) ln(rest []arg, w *where, text cmdText) {
	if !shortFlag(rest, 'f', "--force") {
		return
	}
	words := positional(rest, "St")
	if len(words) >= 2 {
		c.onPaths(text, Overwrite, anyLive, w, words[len(words)-1:], false)
	}
}

// inPlaceEditor is how an editor's command line says it rewrites its
// files (sed -i, perl -pi -e …): -i alone or in a cluster of options, the
// rest of that word its backup suffix (-i.bak, so -ni is in place too);
// the script the word after -e (or the rest of its word) or else the
// first word that is no option; the files the words after it.
type inPlaceEditor struct {
	script string // options whose value is the script: the next word when last in a cluster, else the cluster's rest
	next   string // other options taking the next word when last in a cluster, else the cluster's rest
	rest   string // options taking only the rest of their word (perl's -Mmodule, -Idir)
	// gnu: GNU long options (--in-place[=suffix], --expression, --file)
	// and -- ending the options; without, -- is skipped.
	gnu bool
}

var (
	sedEditor  = inPlaceEditor{script: "ef", next: "l", gnu: true}
	perlEditor = inPlaceEditor{script: "eE", rest: "MmIFl0CxdD"}
)

// read returns whether the command line edits in place, and its files.
func (e inPlaceEditor) read(rest []arg) (inPlace bool, files []arg) {
	script, opts := false, true
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case opts && a.ok && a.s == "--":
			opts = !e.gnu
			continue
		case opts && a.ok && e.gnu && strings.HasPrefix(a.s, "--"):
			switch {
			case a.s == "--in-place" || strings.HasPrefix(a.s, "--in-place="):
				inPlace = true
			case a.s == "--expression" || a.s == "--file":
				script = true
				i++
			case strings.HasPrefix(a.s, "--expression=") || strings.HasPrefix(a.s, "--file="):
				script = true
			}
			continue
		case opts && a.ok && strings.HasPrefix(a.s, "-") && len(a.s) > 1 && !strings.HasPrefix(a.s, "--"):
			for j := 1; j < len(a.s); j++ {
				o := a.s[j]
				switch {
				case o == 'i':
					inPlace = true
					j = len(a.s) // the rest is the suffix
				case strings.IndexByte(e.script, o) >= 0 || strings.IndexByte(e.next, o) >= 0:
					script = script || strings.IndexByte(e.script, o) >= 0
					if j == len(a.s)-1 {
						i++
					}
					j = len(a.s)
				case strings.IndexByte(e.rest, o) >= 0:
					j = len(a.s) // the rest of the word is this option's value
				}
			}
			continue
		}
		if !script {
			script = true
			continue
		}
		files = append(files, a)
	}
	return inPlace, files
}

// inPlace warns of an in-place editor's files (sed -i, perl -i).
func (c *classifier) inPlace(e inPlaceEditor, rest []arg, w *where, text cmdText) {
	if inPlace, files := e.read(rest); inPlace {
		c.onPaths(text, Overwrite, anyLive, w, files, false)
	}
}

// dd of=FILE writes it.
func (c *classifier) dd(rest []arg, w *where, text cmdText) {
	for _, a := range rest {
		if !a.ok {
			continue
		}
		if v, ok := strings.CutPrefix(a.s, "of="); ok {
			c.onPaths(text, Overwrite, anyLive, w, []arg{{s: v, ok: true}}, false)
		}
	}
}

// gofmt -w / goimports -w rewrite the files and directories named.
func (c *classifier) gofmt(rest []arg, w *where, text cmdText) {
	if !shortFlag(rest, 'w') {
		return
	}
	c.onPaths(text, Overwrite, anyLive, w, positional(rest, ""), true)
}

// go fmt rewrites the packages named (./... below the directory); go mod
// tidy rewrites go.mod and go.sum.
func (c *classifier) gotool(rest []arg, w *where, text cmdText) {
	if len(rest) == 0 || !rest[0].ok {
		return
	}
	switch rest[0].s {
	case "fmt":
		pkgs := positional(rest[1:], "")
		if len(pkgs) == 0 {
			pkgs = []arg{{s: ".", ok: true}}
		}
		for _, p := range pkgs {
			if p.ok && (p.s == "./..." || strings.HasSuffix(p.s, "/...")) {
				p.s = strings.TrimSuffix(p.s, "...")
				c.onPaths(text, Overwrite, anyLive, w, []arg{p}, true)
				continue
			}
			if p.ok && !strings.HasPrefix(p.s, ".") && !strings.HasPrefix(p.s, "/") {
				continue // an import path: outside the worktree, most likely
			}
			if p.ok {
				p = arg{s: strings.TrimSuffix(p.s, "/") + "/*", ok: true, glob: true}
			}
			c.onPaths(text, Overwrite, anyLive, w, []arg{p}, false)
		}
	case "mod":
		if len(rest) > 1 && rest[1].ok && rest[1].s == "tidy" {
			c.onPaths(text, Overwrite, anyLive, w, []arg{{s: "go.mod", ok: true}, {s: "go.sum", ok: true}}, false)
		}
	}
}

// redirect: > >> >| &> &>> <> write their file (a known /dev path or a
// descriptor does not).
func (c *classifier) redirect(r *syntax.Redirect, w *where, text cmdText) {
	c.steps++
	if r.Hdoc != nil {
		c.scan(r.Hdoc, w) // an unquoted here-document runs its substitutions
	}
	if r.Word == nil {
		return
	}
	c.scan(r.Word, w)
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.RdrAllClob, syntax.AppAllClob:
	case syntax.DplOut:
		a := c.word(r.Word)
		if a.ok && (a.s == "-" || isDigits(a.s)) {
			return
		}
	default:
		return
	}
	a := c.word(r.Word)
	if a.ok && strings.HasPrefix(a.s, "/dev/") {
		return
	}
	c.onPaths(text, Overwrite, anyLive, w, []arg{a}, false)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
