package shellguard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hall-dev/hall/internal/contract"
	"mvdan.cc/sh/v3/syntax"
)

// What the model reads is a budget: a verdict renders to at most
// MaxLines lines (at most maxShown findings and hints, the head line and
// the reported block's two), each finding naming at most ShownFiles
// files.
const (
	MaxLines   = maxShown + 3
	maxShown   = 6
	ShownFiles = 3
	agentWidth = 40 // as the cockpit clips an agent id
	themeWidth = 60
	pathWidth  = 72
)

// Lines renders the verdict for the model: a line in the Hall's words
// (what the command would do, to whom unnamed), then the findings (who,
// which files, what the command would do to them) inside the reported
// block, then the narrow alternative; the findings and hints at most
// MaxLines in all; nil when there is nothing to say. Text another agent
// wrote (its id, theme, paths) appears only inside the block
// (contract.ReportedLines): it is data, never instructions.
func (v Verdict) Lines() []string {
	if !v.Warn() {
		return nil
	}
	groups := group(v.Findings)
	var found, hints []string
	hinted := map[string]bool{}
	shown := 0
	for _, g := range groups {
		if len(found) == maxShown-1 {
			break
		}
		found = append(found, findingLine(g))
		shown += len(g)
		for _, f := range g {
			if h := v.narrow(f); h != "" && !hinted[h] {
				hinted[h] = true
				hints = append(hints, h)
			}
		}
	}
	lines := []string{headLine(groups[0])}
	lines = append(lines, contract.ReportedLines(found)...)
	if more := len(v.Findings) - shown + v.More; more > 0 {
		lines = append(lines, fmt.Sprintf("shell guard: +%d more", more))
		found = append(found, "")
	}
	for _, h := range hints {
		if len(found) == maxShown {
			break
		}
		found = append(found, "")
		lines = append(lines, "  instead: "+h)
	}
	return lines
}

// group joins findings that differ only in their action (git reset --hard
// HEAD~1 discards and moves the branch, over the same files), so they
// read as one line.
func group(fs []Finding) [][]Finding {
	var out [][]Finding
	for _, f := range fs {
		joined := false
		for i, g := range out {
			h := g[0]
			if h.Command == f.Command && h.AgentID == f.AgentID && h.Theme == f.Theme && h.Worktree == f.Worktree &&
				h.Reason == f.Reason && (h.Action == Run) == (f.Action == Run) && slices.Equal(h.Files, f.Files) {
				out[i] = append(g, f)
				joined = true
				break
			}
		}
		if !joined {
			out = append(out, []Finding{f})
		}
	}
	return out
}

// headLine is what the first finding's command would do, in the Hall's
// words alone: whose work, and which files, are in the reported lines.
func headLine(g []Finding) string {
	f := g[0]
	what := "other live sessions' uncommitted work"
	if f.Worktree != "" {
		what = "another live session's worktree"
	}
	cmd := "`" + f.Command + "`"
	switch {
	case f.Action == Run:
		return fmt.Sprintf("shell guard: cannot read %s (%s); it may touch %s:", cmd, f.Reason, what)
	case f.Reason != Certain:
		return fmt.Sprintf("shell guard: cannot tell what %s reaches (%s); it may %s %s:", cmd, f.Reason, verbOf(g), what)
	}
	return fmt.Sprintf("shell guard: %s would %s %s:", cmd, verbOf(g), what)
}

func verbOf(g []Finding) string {
	verbs := make([]string, len(g))
	for i, x := range g {
		verbs[i] = x.Action.String()
	}
	return strings.Join(verbs, " and ")
}

// findingLine is one finding in full, for the reported block: it names
// another agent and quotes its text.
func findingLine(g []Finding) string {
	f := g[0]
	verb := verbOf(g)
	who := "of " + quote(f.AgentID, agentWidth)
	if f.Theme != "" {
		who += " (theme " + quote(f.Theme, themeWidth) + ")"
	}
	var what string
	if f.Worktree != "" {
		what = fmt.Sprintf("the worktree %s %s", quotePath(f.Worktree), who)
	} else {
		what = fmt.Sprintf("the uncommitted work %s: %s", who, filesText(f.Files))
	}
	cmd := "`" + f.Command + "`"
	switch {
	case f.Action == Run:
		return fmt.Sprintf("shell guard: cannot read %s (%s); it may touch %s", cmd, f.Reason, what)
	case f.Reason != Certain:
		return fmt.Sprintf("shell guard: cannot tell what %s reaches (%s); it may %s %s", cmd, f.Reason, verb, what)
	}
	return fmt.Sprintf("shell guard: %s would %s %s", cmd, verb, what)
}

func filesText(fs []File) string {
	parts := make([]string, 0, ShownFiles+1)
	for i, f := range fs {
		if i == ShownFiles {
			parts = append(parts, fmt.Sprintf("+%d more", len(fs)-ShownFiles))
			break
		}
		parts = append(parts, quotePath(f.Path)+" ("+stateText(f.State)+")")
	}
	return strings.Join(parts, ", ")
}

func stateText(s State) string {
	switch s {
	case Modified:
		return "modified"
	case Staged:
		return "staged"
	case Untracked:
		return "new, untracked"
	case StagedModified:
		return "staged, and modified since"
	}
	return "changed"
}

// narrow is the narrow form of what the finding's command does.
func (v Verdict) narrow(f Finding) string {
	if f.Reason != Certain {
		return "name the paths you mean rather than computing them at run time"
	}
	switch f.Action {
	case Stage:
		return "stage your own paths only: git add -- " + v.ownText()
	case Commit:
		return "commit your own paths only: git commit -m … -- " + v.ownText()
	case Discard:
		return "restore your own paths only: git restore -- " + v.ownText()
	case Stash:
		return "stash your own paths only: git stash push -- " + v.ownText()
	case Unstage:
		return "unstage your own paths only: git restore --staged -- " + v.ownText()
	case MoveBranch:
		return "let the other session commit first, or work in a worktree of your own (git worktree add)"
	case Overwrite, Move, Delete:
		if f.Worktree != "" {
			return "leave that worktree to the other session"
		}
		return "leave those files to the other session, or ask them first"
	}
	return ""
}

// ownText is the running agent's own paths, shell-quoted, bounded.
func (v Verdict) ownText() string {
	if len(v.Own) == 0 {
		return "<your paths>"
	}
	parts := make([]string, 0, ShownFiles+1)
	for i, p := range v.Own {
		if i == ShownFiles {
			parts = append(parts, fmt.Sprintf("(+%d more)", len(v.Own)-ShownFiles))
			break
		}
		p = clipTail(p, pathWidth)
		q, err := syntax.Quote(p, syntax.LangBash)
		if err != nil {
			q = strconv.Quote(p)
		}
		parts = append(parts, q)
	}
	return strings.Join(parts, " ")
}

// quote makes another agent's text one quoted, clipped, printable field.
func quote(s string, width int) string {
	return strconv.Quote(clipHead(printable(s), width))
}

// quotePath keeps a path's tail, the part a person recognises.
func quotePath(p string) string { return strconv.Quote(clipTail(printable(p), pathWidth)) }

func printable(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

func clipHead(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	return string([]rune(s)[:width-1]) + "…"
}

func clipTail(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	rs := []rune(s)
	return "…" + string(rs[len(rs)-width+1:])
}
