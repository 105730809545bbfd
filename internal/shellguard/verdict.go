package shellguard

// Action is what a command would do to another presence's work.
type Action uint8

const (
	Stage      Action = iota + 1 // put their changes in the index
	Commit                       // put their changes in a commit
	Discard                      // throw their uncommitted changes away
	Stash                        // take their changes out of the worktree into a stash
	Unstage                      // take their staged changes out of the index
	Overwrite                    // write over or into their file
	Move                         // move their file or worktree away
	Delete                       // delete their file or worktree
	MoveBranch                   // switch, reset, pull, merge or rebase the branch under their work
	Run                          // run something the guard cannot read (its action unknown)
)

// actionNames is each action's verb phrase (the renderer's, String) and
// stable code (Code): the one list, so an action added gets both.
var actionNames = [...]struct{ verb, code string }{
	Stage:      {"stage", "stage"},
	Commit:     {"commit", "commit"},
	Discard:    {"discard", "discard"},
	Stash:      {"stash away", "stash"},
	Unstage:    {"unstage", "unstage"},
	Overwrite:  {"overwrite", "overwrite"},
	Move:       {"move away", "move"},
	Delete:     {"delete", "delete"},
	MoveBranch: {"move the branch under", "move_branch"},
	Run:        {"touch", "run"},
}

// String is the verb phrase the renderer uses; "touch" for an action it
// does not know.
func (a Action) String() string {
	if int(a) < len(actionNames) && a != 0 {
		return actionNames[a].verb
	}
	return "touch"
}

// Code is the action's stable snake_case name, for tests and for a wire
// field should one carry it; "unknown" for an action it does not know.
func (a Action) Code() string {
	if int(a) < len(actionNames) && a != 0 {
		return actionNames[a].code
	}
	return "unknown"
}

// Loses reports whether the action can lose uncommitted content for
// good (package recovery snapshots the worktree first): all but a
// commit, which keeps what it takes. Staging counts (a later commit or
// reset of the index takes it from its owner), and so does an action the
// guard cannot read. The one rule of which actions a snapshot guards.
func (a Action) Loses() bool { return a != Commit }

// Loses reports whether any finding of the verdict can lose uncommitted
// content (Action.Loses).
func (v Verdict) Loses() bool {
	for _, f := range v.Findings {
		if f.Action.Loses() {
			return true
		}
	}
	return false
}

// Reason says why a finding is "cannot tell" rather than certain. The zero
// Reason is a certain finding.
type Reason uint8

const (
	Certain      Reason = iota
	RuntimeList         // a file list computed at run time: $(…), `…`, $VAR, xargs, find
	UnknownDir          // the directory the command runs in is computed at run time
	UnreadScript        // a script given as a computed string (sh -c "$X", eval "$X")
	TooLong             // the command line is longer than MaxCommandLen
	TooDeep             // sh -c nesting deeper than MaxDepth
	Unparsed            // the command line does not parse
)

// String names the reason for the renderer.
func (r Reason) String() string {
	switch r {
	case RuntimeList:
		return "its file list is computed at run time"
	case UnknownDir:
		return "the directory it runs in is computed at run time"
	case UnreadScript:
		return "it runs a script computed at run time"
	case TooLong:
		return "the command line is too long to read"
	case TooDeep:
		return "it nests shells too deep to read"
	case Unparsed:
		return "the command line does not parse"
	}
	return ""
}

// Finding is one thing one simple command would do to one other presence's
// work.
type Finding struct {
	Command string // the simple command as written, capped at MaxCommandShown bytes
	Action  Action
	Reason  Reason // Certain, or why the guard cannot tell
	AgentID string
	Theme   string
	// Files are the other presence's files at stake, relative to the
	// scene's root, in the scene's order; empty when the target is a
	// whole worktree (Worktree set).
	Files    []File
	Worktree string // another presence's worktree the command reaches, absolute
}

// Verdict is the guard's answer for one command line.
type Verdict struct {
	Findings []Finding
	// More counts findings left out past MaxFindings.
	More int
	// Own is the running agent's own files, for the narrow alternative.
	Own []string
}

// Warn reports whether the command would touch another presence's work
// (or the guard cannot tell that it would not).
func (v Verdict) Warn() bool { return len(v.Findings) > 0 }

// Bounds on the work and on the answer.
const (
	// MaxCommandLen bounds the command line read: a longer line is
	// "cannot tell" (it warns when anything is at stake) rather than read
	// in part. The bound is the guard's time budget, ≤ 0.2 ms added to a
	// hook answer: the parser alone reads 12–15 ns a byte of text (a
	// commit message or a file in a here-document, a quoted script) and
	// 30–50 where commands are dense, so 4 KiB is about the most the
	// budget holds. Agents' ordinary lines are far shorter, and their
	// longest, a commit message in a here-document, is mostly under it
	// (docs/shell-guard.md, Limits).
	MaxCommandLen = 4 << 10
	// MaxDepth bounds sh -c / bash -c / eval nesting.
	MaxDepth = 4
	// MaxNesting bounds how deep ( and { nest (subshells, groups, $(…)),
	// counted before parsing, so the parser's recursion stays shallow.
	MaxNesting = 64
	// MaxFindings bounds a verdict; the rest are counted in More.
	MaxFindings = 16
	// MaxCommandShown caps the command text a finding carries.
	MaxCommandShown = 120
)
