package contract

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
)

// TestWireEntryIsM1ndsShape restates m1nd's wire_entry test against the
// Hall's presence: root carries the brain, caller_root is absent when it
// equals the root and present when it differs, last_seen_ms is the beat,
// absent optional fields stay absent, the mutation carries the two levels.
func TestWireEntryIsM1ndsShape(t *testing.T) {
	r := presence.Record{PresenceID: presence.ID("exec-a", "/brain/one"), AgentID: "exec-a", Brain: "/brain/one",
		CallerRoot: "/brain/one", FirstSeenMs: 5, LastBeatMs: 9, QueryCount: 1}
	e := wire(t, FromRecord(r))
	for k, want := range map[string]any{"agent_id": "exec-a", "root": "/brain/one", "last_seen_ms": float64(9), "first_seen_ms": float64(5), "query_count": float64(1)} {
		if e[k] != want {
			t.Errorf("%s: got %v, want %v", k, e[k], want)
		}
	}
	for _, k := range []string{"caller_root", "task_ref"} {
		if _, ok := e[k]; ok {
			t.Errorf("%s present: %v", k, e[k])
		}
	}
	if m, _ := e["mutation"].(map[string]any); m == nil || len(m) != 0 {
		t.Errorf("mutation of a quiet presence: got %v, want {}", e["mutation"])
	}

	r.CallerRoot, r.TaskRef, r.Mutation.ObservedAtMs = "/wt/lane-a", "msn_000000000000_neutral", 9
	e = wire(t, FromRecord(r))
	m, _ := e["mutation"].(map[string]any)
	if e["caller_root"] != "/wt/lane-a" || e["task_ref"] != "msn_000000000000_neutral" || m["observed_at_ms"] != float64(9) {
		t.Errorf("got %v, want caller_root, task_ref and observed_at_ms", e)
	}
	if _, ok := m["declared_intent"]; ok {
		t.Errorf("declared_intent present: %v", m)
	}
}

// TestReasonOf: the Hall's clauses onto m1nd's two arms, with the place
// m1nd would name.
func TestReasonOf(t *testing.T) {
	a := &presence.Record{PresenceID: "prs_00000000000a", AgentID: "hand-a", CallerRoot: "/wt/shared", Worktree: "feat/x"}
	b := &presence.Record{PresenceID: "prs_00000000000b", AgentID: "hand-b", CallerRoot: "/wt/shared", Worktree: "feat/x"}
	for _, tc := range []struct {
		name       string
		clauses    []presence.Clause
		reason     string
		callerRoot string
	}{
		{"shared caller_root", []presence.Clause{presence.ClauseCallerRoot}, ReasonSameWorktree, "/wt/shared"},
		{"caller_root preferred over worktree", []presence.Clause{presence.ClauseCallerRoot, presence.ClauseWorktree, presence.ClauseWorkingSet}, ReasonSameWorktree, "/wt/shared"},
		{"shared worktree, a declared string", []presence.Clause{presence.ClauseWorktree}, ReasonSameWorktree, "feat/x"},
		{"a place and working sets", []presence.Clause{presence.ClauseWorktree, presence.ClauseWorkingSet, presence.ClauseTouched}, ReasonSameWorktree, "feat/x"},
		{"declared working sets only", []presence.Clause{presence.ClauseWorkingSet}, ReasonDeclaredOverlap, ""},
		{"declared and touched, no place", []presence.Clause{presence.ClauseWorkingSet, presence.ClauseTouched}, ReasonDeclaredOverlap, ""},
		{"touched only: measured, no place claimed", []presence.Clause{presence.ClauseTouched}, ReasonSameWorktree, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := presence.Collision{Brain: "/brain/one", A: a, B: b, Clauses: tc.clauses, Place: "/wt/shared", Paths: []string{}}
			reason, root := ReasonOf(c)
			if reason != tc.reason || root != tc.callerRoot {
				t.Errorf("got %q, %q; want %q, %q", reason, root, tc.reason, tc.callerRoot)
			}
			w := wire(t, FromCollision(c))
			if w["reason"] != tc.reason || w["brain_root"] != "/brain/one" {
				t.Errorf("wire: got %v", w)
			}
			if got, ok := w["caller_root"]; (tc.callerRoot == "") == ok || (ok && got != tc.callerRoot) {
				t.Errorf("wire caller_root: got %v (present %v), want %q", got, ok, tc.callerRoot)
			}
			if ids, _ := json.Marshal(w["agent_ids"]); string(ids) != `["hand-a","hand-b"]` {
				t.Errorf("agent_ids: got %s", ids)
			}
		})
	}
}

// TestServedBrain: m1nd's object on the wire, null display_name, absent
// owner-wide; the string an older Hall sent still reads.
func TestServedBrain(t *testing.T) {
	b, _ := json.Marshal(PresencesResponse{ServedBrain: Served("/srv/shop")})
	if !strings.Contains(string(b), `"served_brain":{"project_root":"/srv/shop","display_name":null}`) {
		t.Errorf("got %s", b)
	}
	if b, _ := json.Marshal(PresencesResponse{ServedBrain: Served("")}); strings.Contains(string(b), "served_brain") {
		t.Errorf("owner-wide: got %s", b)
	}
	for _, body := range []string{`{"served_brain":"/srv/shop"}`, `{"served_brain":{"project_root":"/srv/shop","display_name":null}}`} {
		var r PresencesResponse
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.ServedBrain.Root() != "/srv/shop" {
			t.Errorf("%s: got %+v, %v", body, r.ServedBrain, err)
		}
	}
}

func wire(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
