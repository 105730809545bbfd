package shellguard

import (
	"path"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Classify reads cmdline as bash would and says what it would do to the
// work of other live presences in scene. It never panics and does work
// linear in len(cmdline) (times the scene's bounded size).
func Classify(cmdline string, scene Scene) Verdict {
	v, _ := classify(cmdline, scene)
	return v
}

// classify is Classify, also counting the steps it took.
func classify(cmdline string, scene Scene) (v Verdict, steps int) {
	return classifyWithin(cmdline, scene, MaxCommandLen)
}

// classifyWithin is classify reading lines up to limit bytes: the tests
// hold the walk linear on lines longer than MaxCommandLen lets through.
func classifyWithin(cmdline string, scene Scene, limit int) (v Verdict, steps int) {
	sc := scene.normalize()
	if !sc.atStake() {
		return Verdict{}, 0
	}
	c := newClassifier(sc)
	defer func() {
		// Fail open, loudly: a parser bug must not break the agent's tool
		// call, and the guard cannot vouch for a line it could not read.
		if recover() != nil {
			c = newClassifier(sc)
			c.runAnything(cmdText{cmdline}, Unparsed)
			v, steps = c.verdict(), c.steps
		}
	}()
	if len(cmdline) > limit {
		c.runAnything(cmdText{cmdline}, TooLong)
		return c.verdict(), c.steps
	}
	if nesting(cmdline) > MaxNesting {
		c.runAnything(cmdText{cmdline}, TooDeep)
		return c.verdict(), c.steps + len(cmdline)
	}
	c.script(cmdline, &where{dir: sc.Dir, known: sc.Dir != ""}, cmdText{cmdline})
	return c.verdict(), c.steps
}

// nesting is the deepest run of open ( and { in the line, quotes ignored:
// an upper bound on how deep the parser recurses for them, read in one pass.
func nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch bracket[s[i]] {
		case 0:
		case 1:
			depth++
			deepest = max(deepest, depth)
		default:
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// bracket is 1 for the bytes that open what nesting counts, -1 for those
// that close it: one load a byte where a switch of four cases compared
// each byte four times (every line the guard reads pays this pass).
var bracket = [256]int8{'(': 1, '{': 1, ')': -1, '}': -1}

// classifier walks one command line. steps counts the work done, so a test
// can hold it to linear.
type classifier struct {
	sc       Scene
	src      string // the source being walked (the line, or an sh -c script)
	depth    int
	steps    int
	findings []Finding
	more     int
	seen     map[findingKey]int
	// filesIn[n] has bit fi set when file fi of its agent is among
	// findings[n].Files: an agent has at most MaxFilesPerOther files.
	filesIn  []uint64
	staged   map[[2]int]bool // files a command earlier on the line staged
	absFiles [][]string      // the others' files, absolute, as sc.Others (absFile)
	args     []arg           // scratch for the words of the commands being read, a stack
	wheres   []where         // the rest of the batch fork takes its copies from
	forks    int             // batches taken
	// shownSpan and shownText: the last command a finding named, and its
	// clipped line (shown).
	shownSpan, shownText string
}

func newClassifier(sc Scene) *classifier {
	return &classifier{sc: sc, seen: map[findingKey]int{}, staged: map[[2]int]bool{}}
}

// absFile is file fi of sc.Others[ai], absolute. The paths are joined the
// first time a command names a path: most lines name none (go test, a
// commit, a line too long to read), and the scene holds up to 1,024.
func (c *classifier) absFile(ai, fi int) string {
	if c.absFiles == nil {
		c.absFiles = make([][]string, len(c.sc.Others))
		for i, w := range c.sc.Others {
			c.absFiles[i] = make([]string, len(w.Files))
			for j, f := range w.Files {
				c.absFiles[i][j] = joinAbs(c.sc.Root, f.Path)
			}
		}
	}
	return c.absFiles[ai][fi]
}

type findingKey struct {
	cmd    string
	action Action
	reason Reason
	agent  int // index in sc.Others, or -1-i for sc.Worktrees[i]
}

// filesIn holds one bit a file of an agent: a MaxFilesPerOther past 64
// does not compile.
const _ = uint(64 - MaxFilesPerOther)

// where is the shell's working directory as the walk knows it.
type where struct {
	dir   string
	known bool
	stack []string // pushd's stack, bounded
}

// fork is a copy of w for a subshell, a pipe's side or a redirection: a
// cd there does not move w. The copies come from the classifier's batch
// (one allocation for many: a chain of pipes forks per link), and share
// w's pushd stack clipped to its length, so a pushd in the copy appends to
// a stack of its own and a popd only shortens the copy's view.
func (c *classifier) fork(w *where) *where {
	if len(c.wheres) == 0 {
		c.forks++
		c.wheres = make([]where, min(whereBatch<<c.forks, maxWhereBatch))
	}
	f := &c.wheres[0]
	c.wheres = c.wheres[1:]
	*f = where{dir: w.dir, known: w.known, stack: w.stack[:len(w.stack):len(w.stack)]}
	return f
}

// A line's first batch holds two forks (most lines fork once or twice or
// not at all); each next one doubles, up to maxWhereBatch.
const (
	whereBatch    = 1
	maxWhereBatch = 32
)

const (
	maxDirStack = 16
	// maxDirBytes bounds the directory the walk tracks (the Hall's own
	// bound on a path); a cd past it is a directory computed at run time.
	maxDirBytes = 1024
)

func (c *classifier) verdict() Verdict {
	return Verdict{Findings: c.findings, More: c.more, Own: c.sc.Own}
}

// script parses src and walks it; a nested call (sh -c, eval) past
// MaxDepth is "cannot tell".
func (c *classifier) script(src string, w *where, text cmdText) {
	if c.depth >= MaxDepth {
		c.runAnything(text, TooDeep)
		return
	}
	f, err := parse(src)
	if err != nil {
		c.runAnything(text, Unparsed)
		return
	}
	outer := c.src
	c.src = src
	c.depth++
	c.stmts(f.Stmts, w)
	c.depth--
	c.src = outer
}

// parsers are bash parsers kept between lines. A Parser is 2.3 KiB of
// read buffers, allocated and zeroed for every line otherwise: on a
// corpus line a sixth of what a shell command's hook answer allocates,
// and so of the garbage collection that sets its p99. A parser is done
// with a line when Parse returns (the tree is the caller's); one that
// panicked is dropped with its classifier, never put back. A pooled
// parser keeps its last tree alive until it parses again or the garbage
// collector empties the pool.
var parsers = sync.Pool{New: func() any {
	return &lineParser{p: syntax.NewParser(syntax.Variant(syntax.LangBash))}
}}

type lineParser struct {
	p *syntax.Parser
	r strings.Reader
}

// parse parses src as bash, with a parser from the pool.
func parse(src string) (*syntax.File, error) {
	lp := parsers.Get().(*lineParser)
	lp.r.Reset(src)
	f, err := lp.p.Parse(&lp.r, "")
	lp.r.Reset("")
	parsers.Put(lp)
	return f, err
}

func (c *classifier) stmts(ss []*syntax.Stmt, w *where) {
	for _, s := range ss {
		c.stmt(s, w)
	}
}

func (c *classifier) stmt(s *syntax.Stmt, w *where) {
	if s == nil {
		return
	}
	c.steps++
	before := w
	if len(s.Redirs) > 0 {
		before = c.fork(w) // redirections open before the command runs (a cd in it does not move them)
	}
	if s.Background {
		w = c.fork(w) // a background job's cd does not move the next command
	}
	c.command(s.Cmd, w)
	if len(s.Redirs) > 0 {
		text := c.text(s)
		for _, r := range s.Redirs {
			c.redirect(r, before, text)
		}
	}
}

func (c *classifier) command(cmd syntax.Command, w *where) {
	c.steps++
	switch x := cmd.(type) {
	case *syntax.CallExpr:
		c.call(x, w)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			// Each side of a pipe runs in a subshell.
			c.stmt(x.X, c.fork(w))
			c.stmt(x.Y, c.fork(w))
			return
		}
		c.stmt(x.X, w)
		c.stmt(x.Y, w)
	case *syntax.Subshell:
		c.stmts(x.Stmts, c.fork(w))
	case *syntax.Block:
		c.stmts(x.Stmts, w)
	case *syntax.IfClause:
		for ic := x; ic != nil; ic = ic.Else {
			c.stmts(ic.Cond, w)
			c.stmts(ic.Then, w)
		}
	case *syntax.WhileClause:
		c.stmts(x.Cond, w)
		c.stmts(x.Do, w)
	case *syntax.ForClause:
		c.scan(x.Loop, w)
		c.stmts(x.Do, w)
	case *syntax.CaseClause:
		c.scan(x.Word, w)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				c.scan(p, w)
			}
			c.stmts(it.Stmts, w)
		}
	case *syntax.FuncDecl:
		// A function defined on the line is read as if it runs: it is
		// there to be called.
		c.stmt(x.Body, c.fork(w))
	case *syntax.TimeClause:
		c.stmt(x.Stmt, w)
	case *syntax.CoprocClause:
		c.stmt(x.Stmt, c.fork(w))
	case *syntax.TestDecl:
		c.stmt(x.Body, c.fork(w))
	case nil:
	default:
		// Arithmetic, [[ ]], let, declare/export: only their substitutions run.
		c.scan(x, w)
	}
}

// plain reports whether n is a word that cannot hold a substitution (its
// parts all literal or single-quoted), so scan can skip the walk.
func plain(n syntax.Node) bool {
	wd, ok := n.(*syntax.Word)
	if !ok {
		return false
	}
	for _, p := range wd.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

// scan walks a node for the commands its substitutions run ($(…), `…`,
// <(…)), each in a subshell.
func (c *classifier) scan(n syntax.Node, w *where) {
	if n == nil || plain(n) {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		c.steps++
		switch x := n.(type) {
		case *syntax.CmdSubst:
			c.stmts(x.Stmts, c.fork(w))
			return false
		case *syntax.ProcSubst:
			c.stmts(x.Stmts, c.fork(w))
			return false
		}
		return true
	})
}

func (c *classifier) call(x *syntax.CallExpr, w *where) {
	var env envPrefix
	for _, a := range x.Assigns {
		c.scan(a, w)
		if a.Name == nil || a.Value == nil {
			continue
		}
		switch a.Name.Value {
		case "GIT_DIR":
			env.gitDir = true
		case "GIT_WORK_TREE":
			v := c.word(a.Value)
			env.workTree = &v
		}
	}
	if len(x.Args) == 0 {
		return
	}
	// The words go on the classifier's scratch stack, cut back when the
	// command is read: a nested script (sh -c, eval) pushes above them.
	mark := len(c.args)
	for _, wd := range x.Args {
		if a, ok := c.literal(wd); ok {
			c.args = append(c.args, a) // most words: nothing runs in them, nothing expands
			continue
		}
		c.scan(wd, w)
		c.args = c.words(c.args, wd)
	}
	args := c.args[mark:len(c.args):len(c.args)]
	c.simple(args, env, w, c.text(x))
	clear(c.args[mark:])
	c.args = c.args[:mark]
}

// envPrefix is what a command's own assignments change for git.
type envPrefix struct {
	gitDir   bool
	workTree *arg
}

// cmdText is a command as written: a span of the source, clipped into a
// line only when a finding needs it (most commands never do).
type cmdText struct{ span string }

func (t cmdText) String() string { return clipText(t.span) }

// text is the node as written.
func (c *classifier) text(n syntax.Node) cmdText {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(c.src) || start >= end {
		return cmdText{}
	}
	return cmdText{c.src[start:end]}
}

// clipText makes s one printable line of at most MaxCommandShown bytes,
// cut at a rune boundary and ending in "…" when cut.
func clipText(s string) string {
	if len(s) > 4*MaxCommandShown {
		s = s[:4*MaxCommandShown] // bound the work below; cut again after
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r // an invalid byte comes as utf8.RuneError, written as U+FFFD
	}, s)
	if len(s) <= MaxCommandShown {
		return s
	}
	i := MaxCommandShown
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// arg is one word of a simple command.
type arg struct {
	s    string // the value, when ok
	ok   bool   // known before run time (no parameter, substitution, brace or ~user)
	glob bool   // holds an unquoted shell glob character, expanded by the shell
}

// unknownArg stands for words that only exist at run time (xargs' input,
// find's {}).
var unknownArg = arg{}

// Brace expansion is read for short words with few results: past these,
// the words are computed at run time as far as the guard knows.
const (
	maxBraceWord    = 256
	maxBraceResults = 32
)

// words appends a command word's values: one, or those of its brace
// expansion (src/{a,b}.go is two words, known before run time).
func (c *classifier) words(out []arg, wd *syntax.Word) []arg {
	a := c.word(wd)
	if a.ok || !braced(wd) {
		return append(out, a)
	}
	return c.braceWords(out, wd, a)
}

// braceWords appends the words of wd's brace expansion, or a when it is
// not read. Apart from words: the range over an iterator moves what it
// touches to the heap, and words runs for every word of the line.
func (c *classifier) braceWords(out []arg, wd *syntax.Word, a arg) []arg {
	if wd.End().Offset()-wd.Pos().Offset() > maxBraceWord || !syntax.SplitBraces(wd) {
		return append(out, a)
	}
	var got []arg
	for w2, err := range expand.BracesSeq(nil, wd) {
		c.steps += maxBraceWord
		if err != nil || len(got) == maxBraceResults {
			return append(out, arg{})
		}
		got = append(got, c.word(w2))
	}
	return append(out, got...)
}

// braced reports whether an unquoted part of the word holds a {.
func braced(wd *syntax.Word) bool {
	for _, p := range wd.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// literal reads a word that is one plain literal, its own value (no
// quote, escape, substitution, brace, tilde or glob): false for any other.
func (c *classifier) literal(wd *syntax.Word) (arg, bool) {
	if len(wd.Parts) == 1 {
		if l, ok := wd.Parts[0].(*syntax.Lit); ok && plainLit(l.Value) {
			c.steps += 1 + len(l.Value)
			return arg{s: l.Value, ok: true}, true
		}
	}
	return arg{}, false
}

// word reads a word's value when it is known before run time.
func (c *classifier) word(wd *syntax.Word) arg {
	if a, ok := c.literal(wd); ok {
		return a
	}
	var b strings.Builder
	b.Grow(int(wd.End().Offset() - wd.Pos().Offset())) // the value is never longer than the word as written
	a := arg{ok: true}
	for i, p := range wd.Parts {
		c.steps++
		switch x := p.(type) {
		case *syntax.Lit:
			v := x.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				rest, ok := c.tilde(v)
				if !ok {
					return arg{}
				}
				v = rest
			}
			if !unquotedLit(v, &b, &a) {
				return arg{}
			}
		case *syntax.SglQuoted:
			if x.Dollar {
				return arg{}
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return arg{}
				}
				dquoted(l.Value, &b)
			}
		default:
			return arg{}
		}
	}
	a.s = b.String()
	c.steps += len(a.s)
	return a
}

// plainLit reports whether an unquoted literal is its own value: no
// escape, tilde, brace or glob in it. One load a byte, for every word of
// the line (strings.ContainsAny costs a rune search a byte).
func plainLit(s string) bool {
	for i := 0; i < len(s); i++ {
		if litSpecial[s[i]] {
			return false
		}
	}
	return true
}

// litSpecial is the bytes that make an unquoted literal other than its
// own value.
var litSpecial = [256]bool{'\\': true, '~': true, '{': true, '*': true, '?': true, '[': true}

// tilde expands a leading ~ or ~/ with the scene's home.
func (c *classifier) tilde(v string) (string, bool) {
	if c.sc.Home == "" || (v != "~" && !strings.HasPrefix(v, "~/")) {
		return "", false
	}
	return c.sc.Home + v[1:], true
}

// unquotedLit writes an unquoted literal's value, noting globs; false for
// brace expansion, which makes several words at run time.
func unquotedLit(v string, b *strings.Builder, a *arg) bool {
	// A { opens a brace expansion when a , or a } follows it and a , or a
	// .. does: the last of each, found once, answers it for every {
	// (searching the rest of v at each { was quadratic in a word of {s).
	comma, closing, dots := -2, -2, -2 // -2: not looked for yet
	for i := 0; i < len(v); i++ {
		ch := v[i]
		switch ch {
		case '\\':
			if i+1 < len(v) {
				i++
				if v[i] != '\n' {
					b.WriteByte(v[i])
				}
			}
			continue
		case '*', '?', '[':
			a.glob = true
		case '{':
			if comma == -2 {
				comma, closing, dots = strings.LastIndexByte(v, ','), strings.LastIndexByte(v, '}'), strings.LastIndex(v, "..")
			}
			if (comma > i || closing > i) && (comma > i || dots > i) {
				return false
			}
		}
		b.WriteByte(ch)
	}
	return true
}

// dquoted writes a double-quoted literal's value: only \ before $ ` " \
// and newline escapes.
func dquoted(v string, b *strings.Builder) {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(v[i])
	}
}

// abs resolves a word against the shell's directory: "", false when the
// directory is unknown and the word relative.
func (c *classifier) abs(w *where, s string) (string, bool) {
	if strings.HasPrefix(s, "/") {
		if cleanRelative(s[1:]) {
			return s, true
		}
		return path.Clean(s), true
	}
	if !w.known {
		return "", false
	}
	return resolve(w.dir, s), true
}

// resolve is path.Clean(dir + "/" + rel) for a clean absolute dir, without
// copying dir more than once: the leading "." and ".." of rel (cd ..,
// ../x) move up dir in place, and the clean rest is joined to it. A rest
// that is not clean (a/../b, a//b) goes through path.Clean.
func resolve(dir, rel string) string {
	for rel != "" {
		seg, rest, _ := strings.Cut(rel, "/")
		switch seg {
		case "", ".":
		case "..":
			dir = parent(dir)
		default:
			if cleanRelative(rel) {
				// dir is clean: joined to a clean relative path it stays
				// clean, and path.Clean would copy the (up to
				// maxDirBytes) directory again.
				return joinAbs(dir, rel)
			}
			return path.Clean(dir + "/" + rel)
		}
		rel = rest
	}
	return dir
}

// parent is a clean absolute path's directory ("/" for "/").
func parent(dir string) string {
	i := strings.LastIndexByte(dir, '/')
	if i <= 0 {
		return "/"
	}
	return dir[:i]
}

// cleanRelative reports whether s is a relative path path.Clean leaves as
// it is: non-empty segments, none of them "." or "..". One pass over s.
func cleanRelative(s string) bool {
	if s == "" {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '/' {
			continue
		}
		switch seg := s[start:i]; seg {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
}

// chdir moves w to the directory a cd names (unknown when computed at run
// time, or too long to be real).
func (c *classifier) chdir(w *where, a arg) {
	if !a.ok || a.glob || a.s == "-" {
		w.known = false
		return
	}
	s := a.s
	if s == "" {
		return // bash: cd "" stays put
	}
	d, ok := c.abs(w, s)
	c.steps += len(d)
	if !ok || len(d) > maxDirBytes {
		w.known = false
		return
	}
	w.dir, w.known = d, true
}
