package main

// Overlaps end to end (issue #20): two Claude Code sessions in two real
// git worktrees of one repository, through the real Hall and its git
// scanner. What each agent hears, what the contract lists, what the
// events say.

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
)

// overlapWithin bounds the waits on the scanner: a few git processes. It
// is never a measure of speed.
const overlapWithin = 20 * time.Second

// rosterOverlaps reads /api/presences, checked against the schemas.
func rosterOverlaps(t *testing.T, set *schematest.Set, m *Main) contract.PresencesResponse {
	t.Helper()
	var r contract.PresencesResponse
	if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/presences", "presences"), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestOverlapsEndToEnd: A in the main worktree and B in a linked one
// both change src/checkout/cart.go, differently. Through each hook path
// (the command, the HTTP hook): the roster lists one overlap, with both
// sides, the file's evidence and git's verdict conflict; each agent's
// hook names the other, its worktree and branch, the file and the
// verdict, once (a later call is silent) and again as it is about to
// write the file; B reverting its change closes the overlap; the events
// say opened, then closed.
func TestOverlapsEndToEnd(t *testing.T) {
	for _, path := range []hookPath{hookPaths[0], hookPaths[2]} {
		t.Run(path.name, func(t *testing.T) {
			m := MustOpenHall(t, Config{GitInterval: 10 * time.Millisecond})
			set := schematest.FromHall(t, m.URL(), schematest.Strict)
			repo := hooktest.GitRepo(t)
			sessionB := hooktest.SessionB
			a := func(name string) string { return hooktest.Moved(t, hooktest.ClaudeCode, name, repo.Main, "") }
			b := func(name string) string { return hooktest.Moved(t, hooktest.ClaudeCode, name, repo.Worktree, sessionB) }
			cartA := filepath.Join(repo.Main, "src", "checkout", "cart.go")
			cartB := filepath.Join(repo.Worktree, "src", "checkout", "cart.go")
			gittest.WriteFile(t, cartA, "package checkout\n\n// A's total\n")
			gittest.WriteFile(t, cartB, "package checkout\n\n// B's total\n")

			heardA := string(path.call(t, m, "claude", a("post-tool-use-edit.json"), "warn"))
			heardB := string(path.call(t, m, "claude", b("post-tool-use-edit.json"), "warn"))

			var o contract.Overlap
			eventually.True(t, overlapWithin, "the overlap listed as a conflict", func() bool {
				r := rosterOverlaps(t, set, m)
				if len(r.Overlaps) != 1 || r.OverlapsTotal != 1 {
					return false
				}
				o = r.Overlaps[0]
				return o.Verdict == contract.VerdictConflict
			})
			if len(o.Files) != 1 || o.Files[0].Path != "src/checkout/cart.go" || o.FilesTotal != 1 {
				t.Errorf("files %+v (total %d), want src/checkout/cart.go", o.Files, o.FilesTotal)
			}
			for _, ev := range [][]string{o.Files[0].A, o.Files[0].B} {
				if strings.Join(ev, ",") != "observed,git" {
					t.Errorf("evidence %v, want observed and git", ev)
				}
			}
			if o.Merge != contract.MergeConflict || o.Basis != contract.BasisGit || strings.Join(o.Conflicts, ",") != "src/checkout/cart.go" {
				t.Errorf("merge %q basis %q conflicts %v", o.Merge, o.Basis, o.Conflicts)
			}
			sides := map[string]contract.OverlapSide{o.A.AgentID: o.A, o.B.AgentID: o.B}
			sa, sb := sides[hooktest.AgentID(hooktest.ClaudeCode, "")], sides[hooktest.AgentID(hooktest.ClaudeCode, hooktest.SessionB)]
			if sa.Worktree != repo.Main || sb.Worktree != repo.Worktree || sb.Branch != "wt2" || sa.Branch != "main" || sa.Git != "ok" || sb.Git != "ok" {
				t.Errorf("sides %+v, want A in %s on main, B in %s on wt2, git ok", sides, repo.Main, repo.Worktree)
			}
			if o.SinceMs == 0 {
				t.Error("since_ms not set")
			}

			// North and the cockpit carry it, after the collisions.
			var north contract.NorthResponse
			if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/north?presence_id="+sa.PresenceID, "north"), &north); err != nil {
				t.Fatal(err)
			}
			if len(north.Overlaps) != 1 || north.OverlapsTotal != 1 || north.Overlaps[0].OverlapID != o.OverlapID {
				t.Errorf("north of A: overlaps %+v (total %d), want %s", north.Overlaps, north.OverlapsTotal, o.OverlapID)
			}
			if cockpit := getBody(t, m.URL()+"/api/cockpit", 16<<10); !strings.Contains(cockpit, "· 1 overlap\n") || !strings.Contains(cockpit, "\n> overlap: ") || !strings.Contains(cockpit, ": conflict\n") {
				t.Errorf("cockpit %q does not carry the conflict", cockpit)
			}

			// hall watch prints it and, under --exit-on-conflict, ends with 4.
			code, out, stderr := runCLI(t, "", "watch", "--hall", m.URL(), "--exit-on-conflict")
			if code != 4 || !strings.Contains(out, "! on "+repo.Main+": conflict: claude-") || !strings.Contains(stderr, "conflict") {
				t.Errorf("hall watch --exit-on-conflict: exit %d, stdout %q, stderr %q; want 4 and the conflict printed", code, out, stderr)
			}

			// Each side hears the other: at the hook that met the overlap,
			// or its next one; and hears the conflict.
			// An event whose answer the model ignores (Stop) says nothing and
			// keeps what is to tell for the next one it hears.
			if out := path.call(t, m, "claude", a("stop.json"), "warn"); len(out) != 0 {
				t.Errorf("A's Stop: %s, want nothing", out)
			}
			heardA += string(path.call(t, m, "claude", a("post-tool-use-read.json"), "warn"))
			heardB += string(path.call(t, m, "claude", b("post-tool-use-read.json"), "warn"))
			for _, h := range []struct{ who, heard, other, where string }{
				{"A", heardA, hooktest.AgentID(hooktest.ClaudeCode, hooktest.SessionB), "shop-wt2 on branch wt2"},
				{"B", heardB, hooktest.AgentID(hooktest.ClaudeCode, ""), "on branch main"},
			} {
				for _, want := range []string{h.other, h.where, "src/checkout/cart.go", "conflict", "merge it first"} {
					if !strings.Contains(h.heard, want) {
						t.Errorf("%s heard %q, want it to name %q", h.who, h.heard, want)
					}
				}
			}
			// Once: a call that changes nothing of it is silent.
			if out := path.call(t, m, "claude", a("post-tool-use-read.json"), "warn"); len(out) != 0 {
				t.Errorf("A's call after being told: %s, want silence", out)
			}
			// Again as A is about to write the file, once.
			moved := a("pre-tool-use-write.json")
			text, ask := told(t, "claude", path.call(t, m, "claude", moved, "warn"))
			if !strings.Contains(text, hooktest.AgentID(hooktest.ClaudeCode, hooktest.SessionB)) || ask {
				t.Errorf("A about to write the file: %q (ask %v), want B named and no ask", text, ask)
			}
			if out := path.call(t, m, "claude", moved, "warn"); len(out) != 0 {
				t.Errorf("A about to write it again: %s, want silence", out)
			}
			// No surface decides for the person.
			for _, s := range []string{heardA, heardB} {
				if strings.Contains(s, `"deny"`) || strings.Contains(s, `"ask"`) || strings.Contains(s, `"allow"`) {
					t.Errorf("an overlap decided for the person: %s", s)
				}
			}

			// B reverts: the overlap closes.
			gittest.Git(t, repo.Worktree, "checkout", "--", "src/checkout/cart.go")
			path.call(t, m, "claude", b("post-tool-use-edit.json"), "warn")
			eventually.True(t, overlapWithin, "the overlap closed", func() bool {
				return len(rosterOverlaps(t, set, m).Overlaps) == 0
			})
			var page contract.EventsResponse
			if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/events?limit=200", "events"), &page); err != nil {
				t.Fatal(err)
			}
			var types []string
			for i := len(page.Events) - 1; i >= 0; i-- { // oldest first
				if l := page.Events[i]; l.Overlap != nil {
					types = append(types, l.Type)
				}
			}
			if len(types) < 2 || types[0] != contract.LineOverlapOpened || types[len(types)-1] != contract.LineOverlapClosed {
				t.Errorf("overlap events %v, want opened first and closed last", types)
			}
		})
	}
}

// TestOverlapsWithoutGit: with no usable git (--git names none), health
// says observed files only, and two sessions that edited the same file in
// two worktrees still overlap, on their observed files, with no verdict
// of git's: basis paths, merge unknown, each side saying why.
func TestOverlapsWithoutGit(t *testing.T) {
	m := MustOpenHall(t, Config{Git: filepath.Join(t.TempDir(), "no-git-here")})
	set := schematest.FromHall(t, m.URL(), schematest.Strict)
	var h contract.Health
	if err := json.Unmarshal(getChecked(t, set, m.URL(), "/api/health", "health"), &h); err != nil {
		t.Fatal(err)
	}
	if h.Git == nil || h.Git.Status != contract.GitObservedOnly || h.Git.Code != "git_missing" || !strings.Contains(h.Git.Detail, "observed files only") {
		t.Fatalf("health git %+v, want observed_only, git_missing", h.Git)
	}
	repo := hooktest.GitRepo(t)
	a := hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Main, "")
	b := hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", repo.Worktree, hooktest.SessionB)
	hookPaths[2].call(t, m, "claude", a, "warn")
	hookPaths[2].call(t, m, "claude", b, "warn")
	var o contract.Overlap
	eventually.True(t, overlapWithin, "the overlap listed, both worktrees looked for", func() bool {
		r := rosterOverlaps(t, set, m)
		if len(r.Overlaps) == 1 {
			o = r.Overlaps[0]
		}
		return len(r.Overlaps) == 1 && o.A.Git != "not_scanned" && o.B.Git != "not_scanned"
	})
	if o.Verdict != contract.VerdictOverlap || o.Merge != contract.MergeUnknown || o.Basis != contract.BasisPaths ||
		o.A.Git != "git_missing" || o.B.Git != "git_missing" {
		t.Errorf("overlap %+v, want verdict overlap, merge unknown, basis paths, git_missing on both sides", o)
	}
	if len(o.Files) != 1 || strings.Join(o.Files[0].A, ",") != "observed" || strings.Join(o.Files[0].B, ",") != "observed" {
		t.Errorf("files %+v, want src/checkout/cart.go observed on both sides", o.Files)
	}
}
