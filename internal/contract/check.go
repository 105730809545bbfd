package contract

import (
	"fmt"
	"strings"
	"time"
)

// CheckRequest is POST /api/presences/check: what a beat would carry,
// asked "would this collide?" without beating. brain, or caller_root (or
// worktree) for the Hall to derive it from, is required.
type CheckRequest struct {
	AgentID    string   `json:"agent_id,omitempty"` // who asks: its own presence and team are left out
	Brain      string   `json:"brain,omitempty"`
	CallerRoot string   `json:"caller_root,omitempty"`
	Worktree   string   `json:"worktree,omitempty"`
	Paths      []string `json:"paths,omitempty"`    // files or directories, absolute or relative to the worktree (at most 64)
	Mutating   *bool    `json:"mutating,omitempty"` // whether the work would change files; absent: true
}

// CheckResponse answers a check: the live presences the work would
// collide with (one place now) or overlap (another worktree, the same
// files), and why. Nothing is written.
type CheckResponse struct {
	Brain string `json:"brain"`
	// Repository is the identity of the repository the worktree belongs
	// to, as this Hall's git last measured it (docs/worktrees.md, one
	// repository): overlaps are found within it. Absent when git has not
	// answered for the worktree.
	Repository   string     `json:"repository,omitempty"`
	WouldCollide bool       `json:"would_collide"`
	Collisions   []CheckHit `json:"collisions"`
	Overlaps     []CheckHit `json:"overlaps"`
	// Pushed are the active branches pushed to the remote the worktree
	// fetches from that already changed the paths asked about
	// (docs/worktrees.md#pushed-work), at most 10, newest first.
	Pushed []CheckPushed `json:"pushed,omitempty"`
	Error  string        `json:"error,omitempty"` // the roster could not be read (RosterError)
	Detail string        `json:"detail,omitempty"`
}

// CheckHit is one live presence a check meets. Clauses name a collision's
// reasons (caller_root, worktree, working_set, touched); Paths are its
// shared absolute paths, or an overlap's repository-relative files.
type CheckHit struct {
	PresenceID string   `json:"presence_id"`
	AgentID    string   `json:"agent_id"`
	Kind       string   `json:"kind,omitempty"`
	Theme      string   `json:"theme,omitempty"`
	Worktree   string   `json:"worktree,omitempty"`
	Clauses    []string `json:"clauses,omitempty"`
	Paths      []string `json:"paths,omitempty"`
	Merge      string   `json:"merge,omitempty"`  // an overlap's merge prediction: clean, conflict or unknown
	Across     string   `json:"across,omitempty"` // an overlap's: worktree, clone, host or pushed (Overlap.Across)
}

// CheckPushed is a pushed branch a check meets, as git has it.
type CheckPushed struct {
	Remote      string   `json:"remote"`
	Branch      string   `json:"branch"`
	Commit      string   `json:"commit"`
	Author      string   `json:"author"`
	CommittedMs int64    `json:"committed_ms"`
	Paths       []string `json:"paths"` // its changed files that meet the paths asked about
	// SeenMs is when a Hall first saw this tip on the remote (this one,
	// or the one watching it for the Halls on the same NATS store), and
	// SeenAgoMs how long before this answer, on the Hall's clock: not
	// the push time, which only the remote knows. Absent: unknown.
	SeenMs    int64 `json:"seen_ms,omitempty"`
	SeenAgoMs int64 `json:"seen_ago_ms,omitempty"`
}

// CheckText is a check's answer as lines: whom the work would collide
// and overlap with and why, at most shown of each, other agents' text
// quoted. `hall check` prints it, and the MCP tool check under its budget.
func CheckText(resp CheckResponse, shown int) string {
	var t strings.Builder
	if len(resp.Collisions) == 0 && len(resp.Overlaps) == 0 {
		t.WriteString("no collision, no overlap: no other live session is changing that place\n")
		writeCheckPushed(&t, resp.Pushed, shown)
		return t.String()
	}
	// Whom, their themes and paths are what other agents wrote: the
	// reported block holds them, the counts follow it.
	fmt.Fprintf(&t, "check: %d would collide, %d would overlap:\n", len(resp.Collisions), len(resp.Overlaps))
	var reported []string
	if resp.Repository != "" && len(resp.Overlaps) > 0 {
		reported = append(reported, fmt.Sprintf("repository %q", Clip(resp.Repository, 120)))
	}
	for i, h := range resp.Collisions {
		if i == shown {
			break
		}
		reported = append(reported, fmt.Sprintf("would collide: %q (%s)%s [%s]%s", ClipID(h.AgentID), h.PresenceID, checkThemeText(h.Theme), strings.Join(h.Clauses, ", "), checkPathsText(h.Paths)))
	}
	for i, h := range resp.Overlaps {
		if i == shown {
			break
		}
		reported = append(reported, fmt.Sprintf("would overlap: %q (%s)%s in %q%s, merge %s%s", ClipID(h.AgentID), h.PresenceID, checkThemeText(h.Theme), ClipPath(h.Worktree, 72), acrossText(h.Across), h.Merge, checkPathsText(h.Paths)))
	}
	WriteReported(&t, reported)
	if more := len(resp.Collisions) - shown; more > 0 {
		fmt.Fprintf(&t, "… +%d more collisions\n", more)
	}
	if more := len(resp.Overlaps) - shown; more > 0 {
		fmt.Fprintf(&t, "… +%d more overlaps\n", more)
	}
	writeCheckPushed(&t, resp.Pushed, shown)
	return t.String()
}

// writeCheckPushed tells the pushed branches that already changed the
// paths, at most shown, their names and authors in the reported block
// (whoever pushed chose them).
func writeCheckPushed(t *strings.Builder, ps []CheckPushed, shown int) {
	if len(ps) == 0 {
		return
	}
	noun := "branch"
	if len(ps) != 1 {
		noun = "branches"
	}
	fmt.Fprintf(t, "check: %d pushed %s already changed those paths:\n", len(ps), noun)
	var reported []string
	for i, p := range ps {
		if i == shown {
			break
		}
		seen := ""
		if p.SeenMs > 0 {
			seen = ", tip first seen " + AgeMs(p.SeenAgoMs) + " ago"
		}
		reported = append(reported, fmt.Sprintf("already changed on branch %q pushed to %s (tip %s by %q, committed %s%s)%s",
			Clip(p.Branch, 60), ClipPath(p.Remote, 72), shortCommit(p.Commit), Clip(p.Author, 60),
			time.UnixMilli(p.CommittedMs).UTC().Format("2006-01-02 15:04 UTC"), seen, checkPathsText(p.Paths)))
	}
	WriteReported(t, reported)
	if more := len(ps) - shown; more > 0 {
		fmt.Fprintf(t, "… +%d more pushed branches\n", more)
	}
}

func checkThemeText(theme string) string {
	if theme == "" {
		return ""
	}
	return fmt.Sprintf(" theme %q", Clip(theme, 60))
}

func checkPathsText(ps []string) string {
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
		q = append(q, fmt.Sprintf("%q", ClipPath(p, 72)))
	}
	return " paths " + strings.Join(q, ", ")
}

// Who names a presence for GET /api/north and the MCP tools: by its id,
// or by agent id and brain. internal/hall checks it (hall.WhoID).
type Who struct {
	PresenceID string
	AgentID    string
	Brain      string
}
