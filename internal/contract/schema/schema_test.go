package schema_test

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/recovery"
)

// TestIndexListsEveryFile: every embedded file is in the index, its $id
// the path it is served at, and Lookup finds it by that name only.
func TestIndexListsEveryFile(t *testing.T) {
	idx, err := schema.List()
	if err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(schema.FS(), "*")
	if err != nil {
		t.Fatal(err)
	}
	var schemaFiles []string
	for _, f := range files {
		if strings.HasSuffix(f, schema.Suffix) {
			schemaFiles = append(schemaFiles, f)
		}
	}
	var listed []string
	for _, e := range idx.Schemas {
		listed = append(listed, e.Name+schema.Suffix)
		if e.ID != schema.URLPrefix+e.Name+schema.Suffix {
			t.Errorf("%s: $id %q, want %q", e.Name, e.ID, schema.URLPrefix+e.Name+schema.Suffix)
		}
		if _, ok := schema.Lookup(e.Name + schema.Suffix); !ok {
			t.Errorf("Lookup(%q) found nothing", e.Name+schema.Suffix)
		}
	}
	if !slices.Equal(listed, schemaFiles) {
		t.Errorf("index lists %v, the folder holds %v", listed, schemaFiles)
	}
	want := []string{"beat-request", "beat-response", "check-request", "check-response", "collision", "diff", "error", "event", "events", "health", "index", "north", "presence", "presences", "snapshot"}
	for _, n := range want {
		if !slices.ContainsFunc(idx.Schemas, func(e schema.Entry) bool { return e.Name == n }) {
			t.Errorf("no %s schema", n)
		}
	}
	for _, bad := range []string{"", "presences", "presences.json", "../schema.go", "schema.go", "x/presences.schema.json", "nope.schema.json"} {
		if _, ok := schema.Lookup(bad); ok {
			t.Errorf("Lookup(%q) found a schema", bad)
		}
	}
}

// fixture builds the wire values of a roster with every optional field
// set, a collision on every clause, and the degraded forms.
type fixture struct {
	full, bare contract.Presence
	collision  contract.Collision
	overlap    contract.Overlap // git sees both sides: a conflict
	pathsOnly  contract.Overlap // a side on another host: paths only
}

func newFixture() fixture {
	a := presence.Record{
		PresenceID: presence.ID("claude-7", "/srv/shop"), AgentID: "claude-7", Brain: "/srv/shop",
		CallerRoot: "/srv/shop/wt2", Kind: "executor", Theme: "checkout", Worktree: "/srv/shop/wt2",
		WorkingSet: []string{"src/checkout"}, TaskRef: "msn_1",
		Mutation:    presence.Mutation{ObservedAtMs: 1_764_489_600_000, DeclaredIntent: "edit checkout"},
		FirstSeenMs: 1_764_489_000_000, LastBeatMs: 1_764_489_655_000, QueryCount: 41, TTLMs: 120_000,
	}
	b := presence.Record{
		PresenceID: presence.ID("codex-2", "/srv/shop"), AgentID: "codex-2", Brain: "/srv/shop",
		Mutation:    presence.Mutation{DeclaredIntent: "mutate"},
		FirstSeenMs: 1_764_489_000_000, LastBeatMs: 1_764_489_655_000, QueryCount: 1,
	}
	full := a // every field, observed: whichever side its id makes it
	if a.PresenceID > b.PresenceID {
		a, b = b, a
	}
	c := presence.Collision{
		Brain: "/srv/shop", A: &a, B: &b, Place: "/srv/shop/wt2",
		Clauses: []presence.Clause{presence.ClauseCallerRoot, presence.ClauseWorktree, presence.ClauseWorkingSet},
		Paths:   []string{"/srv/shop/wt2/src/checkout"},
	}
	bare := presence.Record{PresenceID: presence.ID("x", "/b"), AgentID: "x", Brain: "/b", LastBeatMs: 1}
	o := presence.Overlap{
		ID: a.PresenceID + "~" + b.PresenceID, Brain: "/srv/shop",
		A:       presence.OverlapSide{PresenceID: a.PresenceID, AgentID: a.AgentID, Theme: "checkout", Worktree: "/srv/shop/wt2", Branch: "wt2"},
		B:       presence.OverlapSide{PresenceID: b.PresenceID, AgentID: b.AgentID, Worktree: "/srv/shop-wt3", Branch: "wt3"},
		Verdict: "conflict", Merge: "conflict",
		Files:      []presence.OverlapFile{{Path: "src/checkout", A: []string{"declared"}, B: []string{"observed", "git"}}, {Path: "src/checkout/cart.go", A: []string{"declared", "observed", "git"}, B: []string{"git"}}},
		FilesTotal: 2, Conflicts: []string{"src/checkout/cart.go"}, ConflictsTotal: 1, SinceMs: 1_764_489_600_000,
	}
	paths := o
	paths.Verdict, paths.Merge, paths.Conflicts, paths.ConflictsTotal = "overlap", "unknown", nil, 0
	paths.B.Git, paths.B.Branch = "worktree_not_here", ""
	return fixture{full: contract.FromRecord(full), bare: contract.FromRecord(bare), collision: contract.FromCollision(c),
		overlap: contract.FromOverlap(o), pathsOnly: contract.FromOverlap(paths)}
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSchemasAcceptTheWireTypes: what the contract types encode conforms,
// closed (Strict) so that a field of a wire type no schema names fails here
// before it reaches a Hall.
func TestSchemasAcceptTheWireTypes(t *testing.T) {
	set := schematest.Embedded(t, schematest.Strict)
	f := newFixture()
	ws := []string{"a.go", "/abs/b.go"}
	lasted := int64(5)
	snap := recovery.Snapshot{ID: "0mxcna8dy8769", Worktree: "/b/w", GitDir: "/b/.git", Head: strings.Repeat("a", 40), Tree: strings.Repeat("b", 40), Commit: strings.Repeat("c", 40),
		Taken: time.Unix(5, 0).UTC(), Trigger: recovery.Trigger{Kind: recovery.TriggerShell, Tool: "Bash", Command: "git checkout ."}, Presence: "claude-1", Agent: "claude-code", Brain: "/b",
		Files: []recovery.File{{Path: "a.go", Mode: 0o644, State: recovery.StateModified}, {Path: "l", Mode: 0o777, State: recovery.StateAdded, Symlink: true}}, FilesLeftOut: 0, Bytes: 4096}
	loss := contract.Loss{Snapshot: snap.ID, Worktree: "/b/w", By: "claude-1", Command: "git checkout .", Owner: "codex-2", Files: []string{"a.go"}, At: time.Unix(6, 0).UTC(), Restore: "hall restore 0mxcna8dy8769 a.go"}
	idx, err := schema.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		schema, what string
		v            any
	}{
		{"presence", "a presence with every field", f.full},
		{"presence", "a bare presence", f.bare},
		{"collision", "a collision on every clause", f.collision},
		{"overlap", "a conflict git predicts", f.overlap},
		{"overlap", "an overlap of paths only", f.pathsOnly},
		{"presences", "a roster", contract.PresencesResponse{Presences: []contract.Presence{f.full, f.bare}, Collisions: []contract.Collision{f.collision}, Overlaps: []contract.Overlap{f.overlap, f.pathsOnly}, OverlapsTotal: 2, ServedBrain: contract.Served("/srv/shop"), ServedAtMs: 5, Cursor: "17960219050000000012"}},
		{"presences", "an empty roster", contract.PresencesResponse{Presences: []contract.Presence{}, Collisions: []contract.Collision{}, Overlaps: []contract.Overlap{}, ServedAtMs: 5}},
		{"presences", "registry unreadable", contract.PresencesResponse{Presences: []contract.Presence{}, Collisions: []contract.Collision{}, Overlaps: []contract.Overlap{}, ServedAtMs: 5, Error: "registry_unreadable", Detail: "gone"}},
		{"snapshot", "a snapshot", contract.PresencesResponse{Presences: []contract.Presence{f.full}, Collisions: []contract.Collision{}, Overlaps: []contract.Overlap{}, ServedAtMs: 5, Cursor: "1"}},
		{"diff", "a diff of every kind", contract.Diff{Seq: 3, Joins: []contract.Presence{f.full}, Updates: []contract.Presence{f.bare}, Leaves: []string{f.bare.PresenceID}, CollisionsOpened: []contract.Collision{f.collision}, CollisionsClosed: []contract.Collision{f.collision}, OverlapsOpened: []contract.Overlap{f.overlap}, OverlapsClosed: []contract.Overlap{f.pathsOnly}, OverlapsTotal: new(1)}},
		{"diff", "a diff dropping the roster", contract.Diff{Seq: 4, Joins: []contract.Presence{}, Updates: []contract.Presence{}, Leaves: []string{f.full.PresenceID}, CollisionsOpened: []contract.Collision{}, CollisionsClosed: []contract.Collision{f.collision}, Error: "registry_unreadable", Detail: "gone"}},
		{"beat-request", "a beat with every field", contract.BeatRequest{AgentID: "a", Brain: "/b", CallerRoot: "/b", Kind: "k", Theme: "t", Worktree: "/b/w", WorkingSet: &ws, TaskRef: "r", Tool: "Edit", DeclaredIntent: "edit"}},
		{"beat-request", "a bare beat", contract.BeatRequest{AgentID: "a", Brain: "/b"}},
		{"beat-request", "a hook's beat", contract.BeatRequest{AgentID: "a", Brain: "/b", Tool: "Bash", Hook: &contract.HookBeat{Moment: contract.MomentBefore, Command: "git add -A &&\n git commit"}}},
		{"beat-request", "a hook's beat, its command cut", contract.BeatRequest{AgentID: "a", Brain: "/b", Hook: &contract.HookBeat{Moment: contract.MomentBefore, CommandCut: true}}},
		{"beat-response", "a hook's answer", contract.BeatResponse{PresenceID: f.full.PresenceID, Stored: true, North: []string{}, Hook: &contract.HookSay{Collisions: contract.TellReminder, Guard: []string{"shell guard: …"}, Others: []string{"The Hall: …", "Leave them alone…"}, Contested: true}}},
		{"check-request", "a check with every field", contract.CheckRequest{AgentID: "a", Brain: "/b", CallerRoot: "/b", Worktree: "/b/w", Paths: []string{"src/a.go", "/b/w/src"}, Mutating: new(bool)}},
		{"check-response", "a check that would collide", contract.CheckResponse{Brain: "/b", WouldCollide: true,
			Collisions: []contract.CheckHit{{PresenceID: f.full.PresenceID, AgentID: "codex-2", Kind: "codex", Theme: "t", Worktree: "/b/w", Clauses: []string{"same_worktree"}, Paths: []string{"/b/w/src/a.go"}}},
			Overlaps:   []contract.CheckHit{{PresenceID: f.bare.PresenceID, AgentID: "claude-3", Worktree: "/b/w2", Paths: []string{"src/a.go"}, Merge: "unknown"}}}},
		{"check-response", "a check, registry unreadable", contract.CheckResponse{Brain: "/b", Collisions: []contract.CheckHit{}, Overlaps: []contract.CheckHit{}, Error: "registry_unreadable", Detail: "gone"}},
		{"north", "north with ownership lines", contract.NorthResponse{PresenceID: f.full.PresenceID, North: []string{}, Others: []string{"The Hall: …", "Leave them alone…"}, Overlaps: []contract.Overlap{}}},
		{"beat-response", "stored", contract.BeatResponse{PresenceID: f.full.PresenceID, Stored: true, North: []string{"collision: codex-2 (prs_7b1f00a2c9e3) also mutating at /srv/shop [same_worktree]"}}},
		{"beat-response", "stored, telling an overlap", contract.BeatResponse{PresenceID: f.full.PresenceID, Stored: true, North: []string{}, Overlaps: []contract.Overlap{f.overlap}}},
		{"beat-response", "throttled", contract.BeatResponse{PresenceID: f.full.PresenceID, Reason: "throttled: held", North: []string{}}},
		{"north", "north", contract.NorthResponse{PresenceID: f.full.PresenceID, North: []string{}, Overlaps: []contract.Overlap{f.overlap}, OverlapsTotal: 1}},
		{"north", "north, registry unreadable", contract.NorthResponse{PresenceID: f.full.PresenceID, North: []string{}, Overlaps: []contract.Overlap{}, Error: "registry_unreadable", Detail: "gone"}},
		{"health", "health", contract.Health{Status: "ok", StartedAtMs: 1, UptimeMs: 2,
			Presences: &contract.HealthRoster{Live: 2, CollisionCount: 1, Presences: []contract.Presence{f.full, f.bare}, Collisions: []contract.Collision{f.collision}},
			Store:     contract.HealthStoreStat{Kind: "dir", Beats: 3}, Stream: &contract.HealthStream{Subscribers: 1},
			Git: &contract.HealthGit{Status: "ok", Version: "2.39.5"}}},
		{"health", "health, git missing", contract.Health{Status: "ok", StartedAtMs: 1, UptimeMs: 2, Store: contract.HealthStoreStat{Kind: "dir"}, Presences: &contract.HealthRoster{Presences: []contract.Presence{}, Collisions: []contract.Collision{}},
			Git: &contract.HealthGit{Status: "observed_only", Code: "git_missing", Detail: "observed files only: no git"}}},
		{"health", "health, registry unreadable", contract.Health{Status: "ok", StartedAtMs: 1, UptimeMs: 2, PresencesError: "registry unreadable: gone", Store: contract.HealthStoreStat{Kind: "nats"}}},
		{"error", "an error", contract.ErrorResponse{Error: "unknown_brain", Detail: "the Hall knows no brain"}},
		{"event", "a snapshot line", contract.Line{Type: contract.LineSnapshot, EventID: "1", AtMs: 5, Snapshot: &contract.PresencesResponse{Presences: []contract.Presence{f.full}, Collisions: []contract.Collision{}, Overlaps: []contract.Overlap{}, ServedAtMs: 5, Cursor: "1"}}},
		{"event", "an update line of a resync", contract.Line{Type: contract.LineUpdate, EventID: "9", Seq: 9, AtMs: 5, Resync: true, Presence: &f.full}},
		{"event", "a closed collision that lasted", contract.Line{Type: contract.LineCollisionClosed, EventID: "12", Seq: 12, AtMs: 9, Collision: &f.collision, OpenedAtMs: 4, LastedMs: &lasted}},
		{"event", "an overlap opened", contract.Line{Type: contract.LineOverlapOpened, EventID: "14", Seq: 14, AtMs: 9, Overlap: &f.overlap}},
		{"event", "an overlap closed", contract.Line{Type: contract.LineOverlapClosed, EventID: "15", Seq: 15, AtMs: 9, Overlap: &f.pathsOnly, OpenedAtMs: 4, LastedMs: &lasted}},
		{"event", "the registry unreadable", contract.Line{Type: contract.LineRegistryUnreadable, EventID: "13", Seq: 13, AtMs: 9, Detail: "gone"}},
		{"events", "recent events", contract.EventsResponse{Events: []contract.Line{{Type: contract.LineJoin, EventID: "3", Seq: 3, AtMs: 1, Presence: &f.bare}, {Type: contract.LineRegistryReadable, EventID: "2", Seq: 2, AtMs: 1}}, LeftOut: 4, Kept: 1000}},
		{"index", "the index", idx},
		{"beat-response", "a hook's answer before a destructive command", contract.BeatResponse{PresenceID: f.full.PresenceID, Stored: true, North: []string{}, Hook: &contract.HookSay{Collisions: contract.TellNothing, Guard: []string{"shell guard: …"}, Recovery: []string{"The Hall saved snapshot 0mxcna8dy8769 of this worktree first: …"}, Snapshots: []string{"0mxcna8dy8769"}}}},
		{"snapshots", "snapshots and a loss", contract.SnapshotList{Kept: true, Snapshots: []recovery.Snapshot{snap}, LeftOut: 3, Losses: []contract.Loss{loss}}},
		{"snapshots", "a Hall that keeps none", contract.SnapshotList{Snapshots: []recovery.Snapshot{}, Losses: []contract.Loss{}}},
		{"snapshot-files", "a snapshot's files now", contract.SnapshotDiff{Snapshot: snap, Files: []recovery.FileDiff{{Path: "a.go", State: recovery.DiffChanged}, {Path: "b.go", State: recovery.DiffMissing}}}},
		{"loss", "a person's loss", contract.Loss{Snapshot: "0mxcna8dy8769", Worktree: "/b/w", By: "claude-1", Command: "git clean -fd", Files: []string{"notes.txt"}, At: time.Unix(5, 0).UTC(), Restore: "hall restore 0mxcna8dy8769 notes.txt"}},
	} {
		set.Check(t, tc.schema, tc.what, encode(t, tc.v))
	}
}

// TestSchemasRejectWrongBodies: each schema refuses what the contract
// rules out, as published (so a client's validation can fail too).
func TestSchemasRejectWrongBodies(t *testing.T) {
	set := schematest.Embedded(t, schematest.Published)
	f := newFixture()
	presenceWith := func(edit func(m map[string]any)) string {
		var m map[string]any
		_ = json.Unmarshal(encode(t, f.full), &m)
		edit(m)
		return string(encode(t, m))
	}
	roster := func(p string) string {
		return `{"presences":[` + p + `],"collisions":[],"served_at_ms":1}`
	}
	const P1UI = schematest.P1UI
	for _, tc := range []struct{ schema, why, body, at string }{
		{"presences", "no collisions list", `{"presences":[],"served_at_ms":1}`, ""},
		{"presences", "collisions null", `{"presences":[],"collisions":null,"served_at_ms":1}`, "/collisions"},
		{"presences", "served_at_ms a string", `{"presences":[],"collisions":[],"served_at_ms":"1"}`, "/served_at_ms"},
		{"presences", "a presence without presence_id", roster(presenceWith(func(m map[string]any) { delete(m, "presence_id") })), "/presences/0"},
		{"presences", "a malformed presence_id", roster(presenceWith(func(m map[string]any) { m["presence_id"] = "prs_XYZ" })), "/presences/0/presence_id"},
		{"presences", "an unknown mutation_level", roster(presenceWith(func(m map[string]any) { m["mutation_level"] = "maybe" })), "/presences/0/mutation_level"},
		{"presences", "observed without observed_at_ms", roster(presenceWith(func(m map[string]any) { m["mutation"] = map[string]any{"declared_intent": "x"} })), "/presences/0/mutation"},
		{"presences", "none with a declared mutate", roster(presenceWith(func(m map[string]any) {
			m["mutation_level"] = "none"
			m["mutation"] = map[string]any{"declared_intent": "Mutate"}
		})), "/presences/0/mutation/declared_intent"},
		{"presences", "a reason not m1nd's", `{"presences":[],"collisions":[{"collision_id":"prs_000000000000~prs_111111111111","brain":"/b","a":{"presence_id":"prs_000000000000","agent_id":"a"},"b":{"presence_id":"prs_111111111111","agent_id":"b"},"clauses":["touched_overlap"],"place":"/b/x","paths":["/b/x"],"brain_root":"/b","agent_ids":["a","b"],"reason":"touched_overlap"}],"served_at_ms":1}`, "/collisions/0/reason"},
		{"presences", "declared_overlap claiming a place", `{"presences":[],"collisions":[{"collision_id":"prs_000000000000~prs_111111111111","brain":"/b","a":{"presence_id":"prs_000000000000","agent_id":"a"},"b":{"presence_id":"prs_111111111111","agent_id":"b"},"clauses":["working_set_overlap"],"place":"/b/x","paths":["/b/x"],"brain_root":"/b","caller_root":"/b/wt","agent_ids":["a","b"],"reason":"declared_overlap"}],"served_at_ms":1}`, "/collisions/0/reason"},
		{"presences", "one agent_id", `{"presences":[],"collisions":[{"collision_id":"prs_000000000000~prs_111111111111","brain":"/b","a":{"presence_id":"prs_000000000000","agent_id":"a"},"b":{"presence_id":"prs_111111111111","agent_id":"b"},"clauses":["working_set_overlap"],"place":"/b/x","paths":["/b/x"],"brain_root":"/b","agent_ids":["a"],"reason":"declared_overlap"}],"served_at_ms":1}`, "/collisions/0/agent_ids"},
		{"presences", "served_brain a string", `{"presences":[],"collisions":[],"collisions_total":0,"served_at_ms":1,"served_brain":"/b"}`, "/served_brain"},
		{"presences", "a presence without root", roster(presenceWith(func(m map[string]any) { delete(m, "root") })), "/presences/0"},
		{"presences", "last_seen_ms a string", roster(presenceWith(func(m map[string]any) { m["last_seen_ms"] = "1" })), "/presences/0/last_seen_ms"},
		{P1UI, "no presences", `{"collisions":[]}`, ""},
		{P1UI, "an entry without root", `{"presences":[{"agent_id":"a","first_seen_ms":1,"last_seen_ms":1,"query_count":1,"mutation":{}}]}`, "/presences/0"},
		{P1UI, "last_seen_ms a string", `{"presences":[{"agent_id":"a","root":"/b","first_seen_ms":1,"last_seen_ms":"1","query_count":1,"mutation":{}}]}`, "/presences/0/last_seen_ms"},
		{P1UI, "a third reason", `{"presences":[],"collisions":[{"brain_root":"/b","agent_ids":["a","b"],"reason":"touched_overlap"}]}`, "/collisions/0/reason"},
		{P1UI, "served_brain a string", `{"presences":[],"served_brain":"/b"}`, "/served_brain"},
		{P1UI, "served_brain without display_name", `{"presences":[],"served_brain":{"project_root":"/b"}}`, "/served_brain"},
		{"presences", "working_set null", roster(presenceWith(func(m map[string]any) { m["working_set"] = nil })), "/presences/0/working_set"},
		{"presences", "an empty optional field", roster(presenceWith(func(m map[string]any) { m["theme"] = "" })), "/presences/0/theme"},
		{"presences", "a zero ttl", roster(presenceWith(func(m map[string]any) { m["ttl_ms"] = 0 })), "/presences/0/ttl_ms"},
		{"presences", "registry_unreadable with presences", `{"presences":[` + string(encode(t, f.bare)) + `],"collisions":[],"served_at_ms":1,"error":"registry_unreadable","detail":"x"}`, "/presences"},
		{"presences", "an error without detail", `{"presences":[],"collisions":[],"served_at_ms":1,"error":"registry_unreadable"}`, ""},
		{"presences", "another error code", `{"presences":[],"collisions":[],"served_at_ms":1,"error":"oops","detail":"x"}`, "/error"},
		{"presences", "a cursor not decimal", `{"presences":[],"collisions":[],"served_at_ms":1,"cursor":"abc"}`, "/cursor"},
		{"presences", "a collision with an unknown clause", `{"presences":[],"collisions":[{"collision_id":"prs_000000000000~prs_111111111111","brain":"/b","a":{"presence_id":"prs_000000000000","agent_id":"a"},"b":{"presence_id":"prs_111111111111","agent_id":"b"},"clauses":["same_brain"],"place":"/b","paths":[]}],"served_at_ms":1}`, "/collisions/0/clauses/0"},
		{"presences", "a collision without clauses", `{"presences":[],"collisions":[{"collision_id":"prs_000000000000~prs_111111111111","brain":"/b","a":{"presence_id":"prs_000000000000","agent_id":"a"},"b":{"presence_id":"prs_111111111111","agent_id":"b"},"clauses":[],"place":"/b","paths":[]}],"served_at_ms":1}`, "/collisions/0/clauses"},
		{"presences", "no collisions_total", `{"presences":[],"collisions":[],"served_at_ms":1}`, ""},
		{"presences", "a negative collisions_total", `{"presences":[],"collisions":[],"collisions_total":-1,"served_at_ms":1}`, "/collisions_total"},
		{"presences", "registry_unreadable with a total", `{"presences":[],"collisions":[],"collisions_total":3,"served_at_ms":1,"error":"registry_unreadable","detail":"x"}`, "/collisions_total"},
		{"diff", "an empty collisions_unlisted", `{"seq":1,"joins":[],"updates":[],"leaves":[],"collisions_opened":[],"collisions_closed":[],"collisions_unlisted":[]}`, "/collisions_unlisted"},
		{"diff", "an unlisted id that is not a pair", `{"seq":1,"joins":[],"updates":[],"leaves":[],"collisions_opened":[],"collisions_closed":[],"collisions_unlisted":["x"]}`, "/collisions_unlisted/0"},
		{"north", "more lines than the bound", `{"presence_id":"prs_000000000000","collisions_total":12,"north":["collision: a","collision: b","collision: c","collision: d","collision: e","collision: f","collision: g","collision: h","collision: i","collision: j","collision: k","collision: +1 more (12 in all)"]}`, "/north"},
		{"snapshot", "a snapshot without cursor", `{"presences":[],"collisions":[],"served_at_ms":1}`, ""},
		{"diff", "a diff without leaves", `{"seq":1,"joins":[],"updates":[],"collisions_opened":[],"collisions_closed":[]}`, ""},
		{"diff", "a diff at seq 0", `{"seq":0,"joins":[],"updates":[],"leaves":[],"collisions_opened":[],"collisions_closed":[]}`, "/seq"},
		{"diff", "a leave that is not an id", `{"seq":1,"joins":[],"updates":[],"leaves":["claude-7"],"collisions_opened":[],"collisions_closed":[]}`, "/leaves/0"},
		{"beat-request", "no brain", `{"agent_id":"a"}`, ""},
		{"beat-request", "a blank agent_id", `{"agent_id":"  ","brain":"/b"}`, "/agent_id"},
		{"beat-request", "an unknown field", `{"agent_id":"a","brain":"/b","mood":"happy"}`, ""},
		{"beat-request", "a control character", `{"agent_id":"a\nb","brain":"/b"}`, "/agent_id"},
		{"beat-request", "a theme over its limit", `{"agent_id":"a","brain":"/b","theme":"` + strings.Repeat("t", 201) + `"}`, "/theme"},
		{"beat-request", "65 working-set entries", `{"agent_id":"a","brain":"/b","working_set":["` + strings.Repeat(`a","`, 64) + `a"]}`, "/working_set"},
		{"beat-request", "working_set a string", `{"agent_id":"a","brain":"/b","working_set":"a.go"}`, "/working_set"},
		{"beat-response", "not stored, no reason", `{"presence_id":"prs_000000000000","stored":false,"north":[]}`, ""},
		{"beat-response", "stored, with a reason", `{"presence_id":"prs_000000000000","stored":true,"reason":"x","north":[]}`, ""},
		{"beat-response", "north null", `{"presence_id":"prs_000000000000","stored":true,"north":null}`, "/north"},
		{"north", "a line that is not a collision", `{"presence_id":"prs_000000000000","north":["hello"]}`, "/north/0"},
		{"event", "a join without its presence", `{"type":"join","event_id":"1","at_ms":1}`, ""},
		{"event", "lasted without opened", `{"type":"registry_readable","event_id":"1","at_ms":1,"lasted_ms":3}`, ""},
		{"event", "an unknown type", `{"type":"beat","event_id":"1","at_ms":1}`, "/type"},
		{"events", "an update kept in the history", `{"events":[{"type":"registry_readable","event_id":"1","at_ms":1},{"type":"update","event_id":"1","at_ms":1,"presence":{}}],"left_out":0,"kept":1}`, "/events/1"},
		{"health", "presences and presences_error both", `{"status":"ok","started_at_ms":1,"uptime_ms":1,"store":{"kind":"dir","beats":0,"writes":0,"write_errors":0,"throttled":0},"presences_error":"x","presences":{"live":0,"collision_count":0,"skipped":0,"presences":[],"collisions":[]}}`, ""},
		{"health", "neither presences nor presences_error", `{"status":"ok","started_at_ms":1,"uptime_ms":1,"store":{"kind":"dir","beats":0,"writes":0,"write_errors":0,"throttled":0}}`, ""},
		{"health", "a negative counter", `{"status":"ok","started_at_ms":1,"uptime_ms":1,"store":{"kind":"dir","beats":-1,"writes":0,"write_errors":0,"throttled":0},"presences_error":"x"}`, "/store/beats"},
		{"error", "no detail", `{"error":"unknown_brain"}`, ""},
		{"error", "a code that is not snake_case", `{"error":"Unknown Brain","detail":"x"}`, "/error"},
		{"error", "an array", `[{"error":"x","detail":"y"}]`, ""},
	} {
		err := set.Validate(tc.schema, []byte(tc.body))
		switch {
		case err == nil:
			t.Errorf("%s accepts %s: %s", tc.schema, tc.why, tc.body)
		case !strings.Contains(err.Error(), "at '"+tc.at+"'"):
			t.Errorf("%s refuses %s, but not at %q: %v", tc.schema, tc.why, tc.at, err)
		}
	}
}

// TestStrictRejectsAnUndeclaredField: a response may grow a field (the
// published schemas stay open for it), but the tests' strict compile
// refuses one no schema names, at any depth.
func TestStrictRejectsAnUndeclaredField(t *testing.T) {
	published := schematest.Embedded(t, schematest.Published)
	strict := schematest.Embedded(t, schematest.Strict)
	f := newFixture()
	for _, tc := range []struct{ schema, where, body string }{
		{"presences", "top level", `{"presences":[],"collisions":[],"collisions_total":0,"served_at_ms":1,"extra":1}`},
		{"presences", "in a presence", strings.Replace(`{"presences":[P],"collisions":[],"collisions_total":0,"served_at_ms":1}`, "P", strings.Replace(string(encode(t, f.full)), `{`, `{"extra":1,`, 1), 1)},
		{"presences", "in a mutation", strings.Replace(`{"presences":[P],"collisions":[],"collisions_total":0,"served_at_ms":1}`, "P", strings.Replace(string(encode(t, f.full)), `"mutation":{`, `"mutation":{"extra":1,`, 1), 1)},
		{"diff", "in a collision side", strings.Replace(`{"seq":1,"joins":[],"updates":[],"leaves":[],"collisions_opened":[C],"collisions_closed":[]}`, "C", strings.Replace(string(encode(t, f.collision)), `"a":{`, `"a":{"extra":1,`, 1), 1)},
		{"health", "in the stream block", `{"status":"ok","started_at_ms":1,"uptime_ms":1,"store":{"kind":"dir","beats":0,"writes":0,"write_errors":0,"throttled":0},"presences_error":"x","stream":{"subscribers":0,"subscribed":0,"dropped":0,"resumed":0,"snapshots":0,"diffs":0,"extra":1}}`},
		{"snapshot", "top level", `{"presences":[],"collisions":[],"collisions_total":0,"served_at_ms":1,"cursor":"1","extra":1}`},
	} {
		if err := published.Validate(tc.schema, []byte(tc.body)); err != nil {
			t.Errorf("%s, published, refuses an added field %s: %v", tc.schema, tc.where, err)
		}
		if err := strict.Validate(tc.schema, []byte(tc.body)); err == nil {
			t.Errorf("%s, strict, accepts an undeclared field %s", tc.schema, tc.where)
		}
	}
}
