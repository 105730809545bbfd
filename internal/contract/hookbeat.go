package contract

// Hook beats: what a hook adds to the beat it makes, and what the Hall
// answers for the hook alone. Both ride on the beat (BeatRequest.Hook,
// BeatResponse.Hook) so `hall beat --hook` reaches the same operation over
// HTTP as the Hall's own hook endpoint does in process: the command line,
// the say-once state and the roster all stay on the Hall's side. Neither
// is ever stored.

// HookMoment is where in an agent's session a hook beat falls.
type HookMoment string

// The moments. Start is a session starting, resuming or taking a new
// prompt (the ownership lines go there); Before is an event that fires
// before a tool runs (the shell guard reads its command); After follows a
// tool; Other is any other event whose answer reaches the model.
const (
	MomentStart  HookMoment = "start"
	MomentBefore HookMoment = "before_tool"
	MomentAfter  HookMoment = "after_tool"
	MomentOther  HookMoment = "other"
)

// Valid reports whether m is one of the moments.
func (m HookMoment) Valid() bool {
	switch m {
	case MomentStart, MomentBefore, MomentAfter, MomentOther:
		return true
	}
	return false
}

// MaxHeld bounds HookSay.Held: a heading and the guard's lines (at most
// 9 a command: shellguard.MaxLines) of the last 2 commands.
const MaxHeld = 19

// MaxCommand bounds the command line a hook beat carries: well under the
// beat's 64 KiB body. A longer line is not sent; CommandCut says so, and
// the guard reads it as one it cannot tell about.
const MaxCommand = 32 << 10

// HookBeat is what a hook adds to its beat, sent only on the events whose
// answer someone reads: the model, or the person alone (PersonOnly).
type HookBeat struct {
	Moment HookMoment `json:"moment"`
	// PersonOnly: only the person reads this event's answer, never the
	// model (Gemini CLI's BeforeTool, whose systemMessage is shown in the
	// terminal). The Hall answers as usual but counts nothing as told:
	// the collisions stay untold, and the guard's lines and a contested
	// edit are kept for the presence's next beat the model hears.
	PersonOnly bool `json:"person_only,omitempty"`
	// Command is the shell command line the agent is about to run (a
	// Before moment of a shell tool). Only the shell guard reads it; it
	// is never stored nor shown on any roster.
	Command string `json:"command,omitempty"`
	// CommandCut: the agent's command line was over MaxCommand and is
	// not sent.
	CommandCut bool `json:"command_cut,omitempty"`
}

// Tell is how much of its collisions a hook answer tells the model (say
// it once: the full text when something changed or is about to go wrong,
// a one-line reminder now and then, else nothing).
type Tell string

// The tells.
const (
	TellFull     Tell = "full"
	TellReminder Tell = "reminder"
	TellNothing  Tell = "nothing"
)

// HookSay is the Hall's answer for a hook beat, beside the beat's north:
// how much of north to tell, the shell guard's lines for the command
// about to run, and whose uncommitted changes are in this worktree.
type HookSay struct {
	Collisions Tell     `json:"collisions"`
	Guard      []string `json:"guard,omitempty"`
	Others     []string `json:"others,omitempty"`
	// Held are the guard's lines earlier answers only the person read
	// (person_only beats) said, which the model hears now, under one line
	// saying they came before the command ran: at most MaxHeld lines.
	Held []string `json:"held,omitempty"`
	// Contested: the tool about to run would change a file another
	// live presence changed (an edit of it, or a guarded command).
	Contested bool `json:"contested,omitempty"`
	// Recovery are the lines of what the Hall kept (issue 31,
	// docs/recovery.md): before a command that can lose uncommitted work,
	// the snapshot it saved first (or that it could not); after another
	// session's command lost this one's work, which files and the command
	// that brings them back, told once.
	Recovery []string `json:"recovery,omitempty"`
	// Snapshots are the ids of the snapshots saved before the command
	// about to run (hall restore ID).
	Snapshots []string `json:"snapshots,omitempty"`
	// NotSaved are the worktrees the command reaches whose snapshot the
	// Hall could not save first, each with why (its Recovery line says
	// it in words).
	NotSaved []NotSaved `json:"not_saved,omitempty"`
}

// NotSaved is one worktree a hook answer could not snapshot before a
// command that can lose its uncommitted work, and why.
type NotSaved struct {
	Worktree string `json:"worktree"`
	// Reason is one of a fixed set (docs/recovery.md, "Not saved"):
	// too_many_files, too_large, over_max_bytes, git_timeout, git_failed.
	Reason string `json:"reason"`
}
