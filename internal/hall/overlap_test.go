package hall

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/overlap"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// TestOverlapFinderTeams: a session and its subagent, in two worktrees,
// changed the same file as a third agent in a third: the third overlaps
// each of them, the session and its subagent never each other. Without
// git every side says why and counts its observed files.
func TestOverlapFinderTeams(t *testing.T) {
	const brain = "/srv/shop"
	lead := presencetest.Rec("lead", brain, presencetest.Worktree("/srv/shop-1"), presencetest.Touched("/srv/shop-1/src/a.go"))
	sub := presencetest.Rec("lead/sub", brain, presencetest.Worktree("/srv/shop-2"), presencetest.Touched("/srv/shop-2/src/a.go"), presencetest.Parent(lead.PresenceID))
	other := presencetest.Rec("other", brain, presencetest.Worktree("/srv/shop-3"), presencetest.Touched("/srv/shop-3/src/a.go"))
	quiet := presencetest.Rec("quiet", brain, presencetest.Worktree("/srv/shop-4"), presencetest.Touched("/srv/shop-4/src/a.go"), presencetest.NoMutation())
	f := &OverlapFinder{NoGit: "git_missing"}
	got, counts := f.Overlaps(t.Context(), []presence.Record{lead, sub, other, quiet})
	var ids []string
	for _, o := range got {
		ids = append(ids, o.ID)
		if o.A.Git != "git_missing" || o.B.Git != "git_missing" || o.Merge != "unknown" {
			t.Errorf("%s: git %q/%q merge %q, want git_missing and unknown", o.ID, o.A.Git, o.B.Git, o.Merge)
		}
	}
	want := []string{presenceKey(lead.PresenceID, other.PresenceID), presenceKey(sub.PresenceID, other.PresenceID)}
	slices.Sort(want)
	slices.Sort(ids)
	if !slices.Equal(ids, want) || counts.Brains[brain] != 2 {
		t.Errorf("overlaps %v (counted %v), want %v: the team never overlaps itself, a presence not mutating never overlaps", ids, counts, want)
	}
	wantOwn := map[string]int{lead.PresenceID: 1, sub.PresenceID: 1, other.PresenceID: 2}
	if !maps.Equal(counts.Presences, wantOwn) {
		t.Errorf("per presence: got %v, want %v", counts.Presences, wantOwn)
	}

	// Bounded to one listed on the brain, every count still counts all.
	f.Bound.MaxPairs = 1
	got, counts = f.Overlaps(t.Context(), []presence.Record{lead, sub, other, quiet})
	if len(got) != 1 || counts.Brains[brain] != 2 || !maps.Equal(counts.Presences, wantOwn) {
		t.Errorf("bounded to 1: listed %d, counted %v; want 1 listed, the counts of all", len(got), counts)
	}
}

func presenceKey(a, b string) string {
	if b < a {
		a, b = b, a
	}
	return a + "~" + b
}

// TestToldOverlapsPick: what a beat tells, call after call.
func TestToldOverlapsPick(t *testing.T) {
	const me = "prs_aaaaaaaaaaaa"
	ov := func(id, verdict string, files ...string) presence.Overlap {
		o := presence.Overlap{ID: id, Verdict: verdict,
			A: presence.OverlapSide{PresenceID: me, Worktree: "/wt/me"}, B: presence.OverlapSide{PresenceID: "prs_bbbbbbbbbbbb", Worktree: "/wt/b"}}
		for _, f := range files {
			o.Files = append(o.Files, presence.OverlapFile{Path: f})
		}
		return o
	}
	var told toldOverlaps
	steps := []struct {
		what    string
		open    []presence.Overlap
		touched []string
		want    []string // overlap ids told
	}{
		{"nothing open", nil, nil, nil},
		{"one opens: told", []presence.Overlap{ov("x", "overlap", "src/a.go")}, nil, []string{"x"}},
		{"the same again: silent", []presence.Overlap{ov("x", "overlap", "src/a.go")}, nil, nil},
		{"editing another file: silent", []presence.Overlap{ov("x", "overlap", "src/a.go")}, []string{"/wt/me/src/z.go"}, nil},
		{"about to edit its file: told", []presence.Overlap{ov("x", "overlap", "src/a.go")}, []string{"/wt/me/src/a.go"}, []string{"x"}},
		{"editing it again: silent", []presence.Overlap{ov("x", "overlap", "src/a.go")}, []string{"/wt/me/src/a.go"}, nil},
		{"the same path in the other's worktree is not mine", []presence.Overlap{ov("x", "overlap", "src/a.go", "src/b.go")}, []string{"/wt/b/src/b.go"}, nil},
		{"under a declared directory: told", []presence.Overlap{ov("x", "overlap", "src/a.go", "src/dir")}, []string{"/wt/me/src/dir/c.go"}, []string{"x"}},
		{"it becomes a conflict: told", []presence.Overlap{ov("x", "conflict", "src/a.go")}, nil, []string{"x"}},
		{"still a conflict: silent", []presence.Overlap{ov("x", "conflict", "src/a.go")}, nil, nil},
		{"back to overlap: silent", []presence.Overlap{ov("x", "overlap", "src/a.go")}, nil, nil},
		{"it closes", nil, nil, nil},
		{"it opens again: told", []presence.Overlap{ov("x", "overlap", "src/a.go")}, nil, []string{"x"}},
	}
	for _, s := range steps {
		var got []string
		for _, o := range told.pick(me, s.open, s.touched) {
			got = append(got, o.ID)
		}
		if !slices.Equal(got, s.want) {
			t.Errorf("%s: told %v, want %v", s.what, got, s.want)
		}
	}
}

// TestNorthCountsEveryOverlap: a presence's overlaps_total counts all its
// overlaps, listed or not: with the brain's bound at one, three sessions
// in three worktrees changed one file (three pairs), one is listed, and
// each presence's north says 2.
func TestNorthCountsEveryOverlap(t *testing.T) {
	const brain = "/srv/shop"
	store := dirstoretest.Open(t)
	svc := presence.NewService(store, presence.Config{Logger: slog.New(slog.DiscardHandler),
		Overlaps: &OverlapFinder{NoGit: "git_missing", Bound: overlap.Bound{MaxPairs: 1}}})
	h := &Hall{Service: svc}
	var ids []string
	for i := range 3 {
		wt := fmt.Sprintf("/srv/shop-%d", i)
		resp, err := h.Beat(t.Context(), contract.BeatRequest{AgentID: fmt.Sprintf("agent-%d", i), Brain: brain, Worktree: wt,
			Tool: "Edit", Touched: []string{wt + "/src/a.go"}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, resp.PresenceID)
	}
	for _, id := range ids {
		north, err := h.North(t.Context(), Who{PresenceID: id})
		if err != nil {
			t.Fatal(err)
		}
		if north.OverlapsTotal != 2 || len(north.Overlaps) > 1 {
			t.Errorf("north of %s: %d listed, total %d; want at most 1 listed (the bound), total 2", id, len(north.Overlaps), north.OverlapsTotal)
		}
	}
	if snap, _ := svc.Snapshot(t.Context()); len(snap.Overlaps) != 1 || snap.OverlapsTotal != 3 {
		t.Errorf("the roster: %d listed, total %d; want 1, 3", len(snap.Overlaps), snap.OverlapsTotal)
	}
}

// TestCannotSee: which of git's answers let a record's git list stand in
// for the side: those where this Hall's git cannot see the worktree at
// all, never a failure of the moment.
func TestCannotSee(t *testing.T) {
	for reason, want := range map[string]bool{
		"worktree_not_here": true, "not_a_worktree": true, "git_missing": true, "git_too_old": true,
		"git_timeout": false, "git_failed": false, "not_scanned": false, "": false,
	} {
		if got := cannotSee(reason); got != want {
			t.Errorf("cannotSee(%q) = %v, want %v", reason, got, want)
		}
	}
}

// TestShellRan: git is asked to look after an agent's shell tool ran (its
// hook's after moment, or a beat that is no hook's), not before it runs,
// and not after other tools (a mutating one asks on its own account).
func TestShellRan(t *testing.T) {
	before := &contract.HookBeat{Moment: contract.MomentBefore}
	after := &contract.HookBeat{Moment: contract.MomentAfter}
	for _, tc := range []struct {
		req  contract.BeatRequest
		want bool
	}{
		{contract.BeatRequest{Tool: "Bash", Hook: after}, true},              // Claude Code PostToolUse
		{contract.BeatRequest{Tool: "exec_command", Hook: after}, true},      // Codex
		{contract.BeatRequest{Tool: "run_shell_command", Hook: after}, true}, // Gemini CLI AfterTool
		{contract.BeatRequest{Tool: "Shell"}, true},                          // Cursor afterShellExecution (its answer is not read: no hook beat)
		{contract.BeatRequest{Tool: "Bash"}, true},                           // hall beat --tool Bash
		{contract.BeatRequest{Tool: "Bash", Hook: before}, false},            // PreToolUse: not run yet
		{contract.BeatRequest{Tool: "Shell", Hook: before}, false},           // beforeShellExecution
		{contract.BeatRequest{Tool: "Read", Hook: after}, false},
		{contract.BeatRequest{Tool: "Edit", Hook: after}, false},
		{contract.BeatRequest{Hook: &contract.HookBeat{Moment: contract.MomentStart}}, false},
	} {
		if got := shellRan(tc.req); got != tc.want {
			t.Errorf("shellRan(tool %q, hook %+v) = %v, want %v", tc.req.Tool, tc.req.Hook, got, tc.want)
		}
	}
}

// TestListening: an overlap waits for a beat whose answer the model
// reads: not one with no hook part (nobody reads it), nor a person-only
// one (Gemini CLI's BeforeTool).
func TestListening(t *testing.T) {
	for _, tc := range []struct {
		hb   *contract.HookBeat
		want bool
	}{
		{nil, false},
		{&contract.HookBeat{Moment: contract.MomentBefore, PersonOnly: true}, false},
		{&contract.HookBeat{Moment: contract.MomentAfter}, true},
	} {
		l := listening(tc.hb)
		if got := l == nil || *l; got != tc.want {
			t.Errorf("listening(%+v) = %v, want %v", tc.hb, got, tc.want)
		}
	}
}
