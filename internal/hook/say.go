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

// ReminderText is the one line that stands for collisions already told in
// full: the first partner, how many more, and what to do.
func ReminderText(north []string) string {
	s := "The Hall (reminder, told in full before): " + north[0]
	if len(north) > 1 {
		s += fmt.Sprintf(" (+%d more)", len(north)-1)
	}
	return s + ". Leave the other agent's changes alone."
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
		return "The Hall: " + s.Guard[0] + ". Go ahead only if that is fine."
	}
	if len(s.North) > 0 {
		return AskReason(s.North)
	}
	if len(s.Overlaps) > 0 { // never asked for: the person reads it beside the agent
		return "The Hall reports: " + contract.Quoted(contract.OverlapLine(s.PresenceID, s.Overlaps[0]))
	}
	return ""
}
