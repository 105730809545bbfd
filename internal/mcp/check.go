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

// CheckOut is the Hall's answer, as POST /api/presences/check, shortened
// to the budget: at most checkShown presences of each kind (the rest
// counted), their text clipped as the cockpit's, 3 paths each.
type CheckOut struct {
	Brain          string     `json:"brain" jsonschema:"the brain checked, its tail kept to 72 characters"`
	Repository     string     `json:"repository,omitempty" jsonschema:"the identity of the repository the worktree belongs to (overlaps are found within it), clipped to 120 characters"`
	WouldCollide   bool       `json:"would_collide" jsonschema:"true when the work would collide with a live session"`
	Collisions     []CheckHit `json:"collisions" jsonschema:"sessions in the same place now, both mutating"`
	CollisionsMore int        `json:"collisions_more" jsonschema:"collisions left out"`
	Overlaps       []CheckHit `json:"overlaps" jsonschema:"sessions in another worktree (or another clone) of the repository that changed the same files"`
	OverlapsMore   int        `json:"overlaps_more" jsonschema:"overlaps left out"`
	Error          string     `json:"error,omitempty"`
	Detail         string     `json:"detail,omitempty"`
}

// CheckHit is one session a check meets.
type CheckHit struct {
	PresenceID string   `json:"presence_id"`
	AgentID    string   `json:"agent_id"`
	Theme      string   `json:"theme,omitempty"`
	Clauses    []string `json:"clauses,omitempty" jsonschema:"a collision's reasons"`
	Paths      []string `json:"paths,omitempty" jsonschema:"the shared paths, at most 3"`
	Merge      string   `json:"merge,omitempty" jsonschema:"an overlap's merge prediction"`
	Across     string   `json:"across,omitempty" jsonschema:"an overlap's: worktree, clone (another clone on this machine), host or pushed"`
}

// checkShown bounds each list of the answer.
const checkShown = 3

// renderCheck is the answer and its text: one line per presence met.
func renderCheck(resp contract.CheckResponse) (CheckOut, string) {
	out := CheckOut{Brain: contract.ClipPath(resp.Brain, 72), Repository: contract.Clip(resp.Repository, 120), WouldCollide: resp.WouldCollide, Error: resp.Error, Detail: contract.Clip(resp.Detail, reasonWidth)}
	out.Collisions, out.CollisionsMore = checkHits(resp.Collisions)
	out.Overlaps, out.OverlapsMore = checkHits(resp.Overlaps)
	var t strings.Builder
	if out.Error != "" {
		fmt.Fprintf(&t, "check: unavailable (%s: %s)\n", out.Error, out.Detail)
		return out, t.String()
	}
	t.WriteString(contract.CheckText(resp, checkShown))
	return out, t.String()
}

func checkHits(hits []contract.CheckHit) ([]CheckHit, int) {
	out := []CheckHit{}
	for i, h := range hits {
		if i == checkShown {
			return out, len(hits) - checkShown
		}
		c := CheckHit{PresenceID: h.PresenceID, AgentID: contract.Clip(h.AgentID, 40), Theme: contract.Clip(h.Theme, 60), Clauses: h.Clauses, Merge: h.Merge, Across: h.Across}
		for j, p := range h.Paths {
			if j == 3 {
				break
			}
			c.Paths = append(c.Paths, contract.ClipPath(p, 72))
		}
		out = append(out, c)
	}
	return out, 0
}
