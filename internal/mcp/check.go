package mcp

import (
	"fmt"
	"strings"

	"github.com/hall-dev/hall/internal/contract"
)

// CheckIn is what a beat would carry, to ask whom it would meet.
type CheckIn struct {
	Paths      []string `json:"paths,omitempty" jsonschema:"files or directories the work would change, relative to the worktree or absolute (at most 64)"`
	Worktree   string   `json:"worktree,omitempty" jsonschema:"absolute path of the git worktree; default: the top level of caller_root's repository"`
	CallerRoot string   `json:"caller_root,omitempty" jsonschema:"absolute path the work happens from; default: this session's"`
	Brain      string   `json:"brain,omitempty" jsonschema:"absolute path of the workspace root; default: derived from caller_root"`
	AgentID    string   `json:"agent_id,omitempty" jsonschema:"who asks (its own presence is left out); default: this session's agent_id"`
	Mutating   *bool    `json:"mutating,omitempty" jsonschema:"whether the work changes files; default true"`
}

// CheckOut is the Hall's answer, as POST /api/presences/check.
type CheckOut struct {
	Brain        string              `json:"brain"`
	WouldCollide bool                `json:"would_collide"`
	Collisions   []contract.CheckHit `json:"collisions"`
	Overlaps     []contract.CheckHit `json:"overlaps"`
	Error        string              `json:"error,omitempty"`
	Detail       string              `json:"detail,omitempty"`
}

// checkShown bounds the lines of each list in the text answer.
const checkShown = 5

// renderCheck is the answer and its text: one line per presence met.
func renderCheck(resp contract.CheckResponse) (CheckOut, string) {
	out := CheckOut{Brain: resp.Brain, WouldCollide: resp.WouldCollide, Collisions: resp.Collisions, Overlaps: resp.Overlaps, Error: resp.Error, Detail: contract.Clip(resp.Detail, reasonWidth)}
	var t strings.Builder
	if out.Error != "" {
		fmt.Fprintf(&t, "check: unavailable (%s: %s)\n", out.Error, out.Detail)
		return out, t.String()
	}
	t.WriteString(CheckText(resp, checkShown))
	return out, t.String()
}

// CheckText is a check's answer as lines: whom the work would collide
// and overlap with and why, at most shown of each, other agents' text
// quoted. `hall check` prints the same.
func CheckText(resp contract.CheckResponse, shown int) string {
	var t strings.Builder
	if len(resp.Collisions) == 0 && len(resp.Overlaps) == 0 {
		t.WriteString("no collision, no overlap: no other live session is changing that place\n")
		return t.String()
	}
	for i, h := range resp.Collisions {
		if i == shown {
			fmt.Fprintf(&t, "… +%d more collisions\n", len(resp.Collisions)-shown)
			break
		}
		fmt.Fprintf(&t, "would collide: %q (%s)%s [%s]%s\n", contract.Clip(h.AgentID, 40), h.PresenceID, themeText(h.Theme), strings.Join(h.Clauses, ", "), pathsText(h.Paths))
	}
	for i, h := range resp.Overlaps {
		if i == shown {
			fmt.Fprintf(&t, "… +%d more overlaps\n", len(resp.Overlaps)-shown)
			break
		}
		fmt.Fprintf(&t, "would overlap: %q (%s)%s in %q, merge %s%s\n", contract.Clip(h.AgentID, 40), h.PresenceID, themeText(h.Theme), contract.ClipPath(h.Worktree, 72), h.Merge, pathsText(h.Paths))
	}
	return t.String()
}

func themeText(theme string) string {
	if theme == "" {
		return ""
	}
	return fmt.Sprintf(" theme %q", contract.Clip(theme, 60))
}

func pathsText(ps []string) string {
	if len(ps) == 0 {
		return ""
	}
	const show = 3
	q := make([]string, 0, show+1)
	for i, p := range ps {
		if i == show {
			q = append(q, fmt.Sprintf("+%d more", len(ps)-show))
			break
		}
		q = append(q, fmt.Sprintf("%q", contract.ClipPath(p, 72)))
	}
	return " paths " + strings.Join(q, ", ")
}
