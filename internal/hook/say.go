package hook

import (
	"fmt"
	"github.com/hall-dev/hall/internal/contract"
	"strings"
)

// Empty reports whether the Hall has nothing for the model this time.
func (s Say) Empty() bool {
	return len(s.North) == 0 && len(s.Guard) == 0 && len(s.Others) == 0 && len(s.Held) == 0 && len(s.Overlaps) == 0 && len(s.Recovery) == 0
}

// Text is everything the model reads for one event: whose changes are in
// this worktree (Others), the collisions (in full, or one reminder line),
// the guard's lines told to the person only before (Held), then the shell
// guard's lines for the command about to run, then what the Hall kept (a
// snapshot saved first, work lost and how to restore it). "" when Empty.
func (s Say) Text(agentID string) string {
	var parts []string
	parts = append(parts, s.Others...)
	switch {
	case len(s.North) == 0:
	case s.Reminder:
		parts = append(parts, ReminderText(s.North))
	default:
		parts = append(parts, ContextText(agentID, s.North))
	}
	parts = append(parts, s.Held...)
	parts = append(parts, s.Guard...)
	parts = append(parts, s.Recovery...)
	if len(s.Overlaps) > 0 {
		parts = append(parts, OverlapText(s.PresenceID, s.Overlaps))
	}
	return strings.Join(parts, "\n")
}

// BeforeRunHeading heads the shell guard's lines where the model reads
// them only after the command ran: held from an answer only the person
// read (Gemini CLI's BeforeTool), or an event the model hears after the
// run (Codex's PreToolUse: the capability table's AfterRun).
const BeforeRunHeading = "The Hall, before the command ran (the person was told):"

// ReminderText stands for collisions already told in full: a line in the
// Hall's words, the first partner inside the reported block (its id and
// paths are its own record's text), how many more, and what to do.
func ReminderText(north []string) string {
	var b strings.Builder
	b.WriteString("The Hall (reminder): the collision goes on.\n")
	contract.WriteReported(&b, north[:1])
	if len(north) > 1 {
		fmt.Fprintf(&b, "(+%d more)\n", len(north)-1)
	}
	b.WriteString("Leave the other agent's changes alone.")
	return b.String()
}

// Reason is the sentence the person reads when asked: the shell guard's
// first line when it spoke, else the collision's.
//
// What the Hall kept (Recovery) follows it: a person deciding whether a
// command may run reads whether its losses are saved.
func (s Say) Reason() string {
	r := s.reason()
	if len(s.Recovery) > 0 {
		r = strings.TrimSpace(r + " " + strings.Join(s.Recovery, " "))
	}
	return r
}

func (s Say) reason() string {
	if len(s.Guard) > 0 {
		// The person reads the first finding, quoted: it names the other
		// session and its files.
		r := "The Hall: " + strings.TrimSuffix(s.Guard[0], ":")
		if first, ok := contract.FirstReported(s.Guard); ok {
			r += ": " + contract.Quoted(first)
		}
		return r + ". Go ahead only if that is fine."
	}
	if len(s.North) > 0 {
		return AskReason(s.North)
	}
	if len(s.Overlaps) > 0 { // never asked for: the person reads it beside the agent
		return "The Hall reports: " + contract.Quoted(contract.OverlapLine(s.PresenceID, s.Overlaps[0]))
	}
	return ""
}
