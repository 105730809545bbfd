package web

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

func TestBeatStoresThrottlesAndAnswers(t *testing.T) {
	th := newTestHall(t, "")
	r := th.do(t, "POST", "/api/presences/beat", beatBody("claude-7", "/srv/shop", map[string]any{"theme": "checkout", "tool": "Read"}), nil)
	if r.status != 200 {
		t.Fatalf("status: got %d %s, want 200", r.status, r.body)
	}
	var got contract.BeatResponse
	r.decode(t, &got)
	if got.PresenceID != presence.ID("claude-7", "/srv/shop") || !got.Stored || got.North == nil || len(got.North) != 0 {
		t.Errorf("first beat: got %+v, want the stable id, stored, north []", got)
	}

	th.clock.Advance(time.Second)
	th.do(t, "POST", "/api/presences/beat", beatBody("claude-7", "/srv/shop", nil), nil).decode(t, &got)
	if got.Stored || !strings.HasPrefix(got.Reason, "throttled") {
		t.Errorf("second beat within 5 s: got %+v, want throttled", got)
	}
	var roster contract.PresencesResponse
	th.do(t, "GET", "/api/presences", "", nil).decode(t, &roster)
	if len(roster.Presences) != 1 || roster.Presences[0].QueryCount != 2 || roster.Presences[0].Theme != "checkout" {
		t.Errorf("roster between writes: got %+v, want one presence with query_count 2 and its theme", roster.Presences)
	}
}

// TestNorthOnBothSides: two mutating sessions in one worktree each get a
// north line naming the other — in the beat's answer and on /api/north.
func TestNorthOnBothSides(t *testing.T) {
	th := newTestHall(t, "")
	wt := map[string]any{"worktree": "/srv/shop-wt2", "tool": "Edit"}
	var a, b contract.BeatResponse
	th.do(t, "POST", "/api/presences/beat", beatBody("claude-7", "/srv/shop", wt), nil).decode(t, &a)
	if len(a.North) != 0 {
		t.Fatalf("alone: got north %v, want none", a.North)
	}
	th.do(t, "POST", "/api/presences/beat", beatBody("codex-2", "/srv/shop", map[string]any{"worktree": "/srv/shop-wt2", "declared_intent": "mutate"}), nil).decode(t, &b)
	if len(b.North) != 1 || !strings.Contains(b.North[0], "claude-7") || !strings.Contains(b.North[0], "/srv/shop-wt2") || !strings.Contains(b.North[0], "same_worktree") {
		t.Errorf("codex-2's north: got %v, want one line naming claude-7, the worktree and the clause", b.North)
	}
	var n contract.NorthResponse
	th.do(t, "GET", "/api/north?presence_id="+a.PresenceID, "", nil).decode(t, &n)
	if len(n.North) != 1 || !strings.Contains(n.North[0], "codex-2") {
		t.Errorf("claude-7's north: got %v, want one line naming codex-2", n.North)
	}
	th.do(t, "GET", "/api/north?agent_id=codex-2&brain=/srv/shop", "", nil).decode(t, &n)
	if n.PresenceID != b.PresenceID || len(n.North) != 1 {
		t.Errorf("north by agent and brain: got %+v", n)
	}

	// A third session in another worktree of the same brain: no north.
	var c contract.BeatResponse
	th.do(t, "POST", "/api/presences/beat", beatBody("claude-9", "/srv/shop", map[string]any{"worktree": "/srv/shop-wt3", "tool": "Write"}), nil).decode(t, &c)
	if len(c.North) != 0 {
		t.Errorf("same brain, own worktree: got north %v, want none", c.North)
	}

	for _, q := range []string{"", "?agent_id=x", "?presence_id=prs_XYZ", "?agent_id=x&brain=rel/path"} {
		if r := th.do(t, "GET", "/api/north"+q, "", nil); r.status != 400 {
			t.Errorf("north%s: got %d, want 400", q, r.status)
		}
	}
}

func TestBeatBadInputChangesNothing(t *testing.T) {
	th := newTestHall(t, "")
	long := func(n int) string { return strings.Repeat("x", n) }
	manyPaths := make([]string, presence.MaxWorkingSetLen+1)
	for i := range manyPaths {
		manyPaths[i] = fmt.Sprintf("src/%d", i)
	}
	cases := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"malformed json", `{"agent_id": "a",`, 400, "malformed_json"},
		{"empty body", ``, 400, "malformed_json"},
		{"not an object", `["a"]`, 400, "malformed_json"},
		{"two values", `{"agent_id":"a","brain":"/b"} {}`, 400, "malformed_json"},
		{"unknown field", `{"agent_id":"a","brain":"/b","workingset":["x"]}`, 400, "malformed_json"},
		{"wrong type", `{"agent_id":7,"brain":"/b"}`, 400, "malformed_json"},
		{"missing agent_id", `{"brain":"/srv/shop"}`, 400, "invalid_beat"},
		{"blank agent_id", `{"agent_id":"  ","brain":"/srv/shop"}`, 400, "invalid_beat"},
		{"missing brain", `{"agent_id":"a"}`, 400, "invalid_beat"},
		{"relative brain", `{"agent_id":"a","brain":"srv/shop"}`, 400, "invalid_beat"},
		{"relative worktree", `{"agent_id":"a","brain":"/srv/shop","worktree":"wt"}`, 400, "invalid_beat"},
		{"control character", `{"agent_id":"a\nb","brain":"/srv/shop"}`, 400, "invalid_beat"},
		{"zero-width space in agent_id", `{"agent_id":"claude-\u200b7","brain":"/srv/shop"}`, 400, "invalid_beat"},
		{"zero-width joiner in kind", `{"agent_id":"a","brain":"/srv/shop","kind":"exec\u200dutor"}`, 400, "invalid_beat"},
		{"BOM in task_ref", `{"agent_id":"a","brain":"/srv/shop","task_ref":"\ufeffmsn_1"}`, 400, "invalid_beat"},
		{"bidi override in theme", `{"agent_id":"a","brain":"/srv/shop","theme":"fix \u202egnp.exe"}`, 400, "invalid_beat"},
		{"bidi isolate in working_set", `{"agent_id":"a","brain":"/srv/shop","working_set":["src/\u2067x"]}`, 400, "invalid_beat"},
		{"agent_id too long", beatBody(long(presence.MaxIDLen+1), "/srv/shop", nil), 400, "field_too_large"},
		{"theme too long", beatBody("a", "/srv/shop", map[string]any{"theme": long(presence.MaxThemeLen + 1)}), 400, "field_too_large"},
		{"path too long", beatBody("a", "/"+long(presence.MaxPathLen), nil), 400, "field_too_large"},
		{"working set too long", beatBody("a", "/srv/shop", map[string]any{"working_set": manyPaths}), 400, "field_too_large"},
		{"body too large", beatBody("a", "/srv/shop", map[string]any{"theme": long(MaxBeatBody)}), 413, "body_too_large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := th.do(t, "POST", "/api/presences/beat", tc.body, nil)
			var e contract.ErrorResponse
			r.decode(t, &e)
			if r.status != tc.status || e.Error != tc.code || e.Detail == "" {
				t.Errorf("got %d %+v, want %d %s with a detail", r.status, e, tc.status, tc.code)
			}
			for _, field := range []string{"agent_id", "kind", "task_ref", "theme", "working_set"} {
				if strings.Contains(tc.name, " in "+field) && !strings.Contains(e.Detail, field) {
					t.Errorf("detail %q: want it to name %s", e.Detail, field)
				}
			}
			if files := th.files(t); len(files) != 0 {
				t.Errorf("bad input wrote %v", files)
			}
		})
	}
}

func TestLeave(t *testing.T) {
	th := newTestHall(t, "")
	var b contract.BeatResponse
	th.do(t, "POST", "/api/presences/beat", beatBody("claude-7", "/srv/shop", nil), nil).decode(t, &b)
	if r := th.do(t, "DELETE", "/api/presences/"+b.PresenceID, "", nil); r.status != http.StatusNoContent {
		t.Fatalf("leave: got %d %s, want 204", r.status, r.body)
	}
	if files := th.files(t); len(files) != 0 {
		t.Errorf("after leave: files %v remain", files)
	}
	var roster contract.PresencesResponse
	th.do(t, "GET", "/api/presences", "", nil).decode(t, &roster)
	if len(roster.Presences) != 0 {
		t.Errorf("after leave: roster %v", roster.Presences)
	}
	for _, tc := range []struct {
		id     string
		status int
		code   string
	}{
		{b.PresenceID, 404, "unknown_presence"},
		{"prs_000000000000", 404, "unknown_presence"},
		{"prs_NOTHEX00000", 400, "invalid_presence_id"},
		{"..%2F..%2Fetc", 400, "invalid_presence_id"},
		{"prs_00000000000%E2%80%8B0", 400, "invalid_presence_id"}, // a zero-width space
		{"prs_%E2%80%AE000000000000", 400, "invalid_presence_id"}, // a bidi override
	} {
		r := th.do(t, "DELETE", "/api/presences/"+tc.id, "", nil)
		var e contract.ErrorResponse
		r.decode(t, &e)
		if r.status != tc.status || e.Error != tc.code {
			t.Errorf("leave %s: got %d %+v, want %d %s", tc.id, r.status, e, tc.status, tc.code)
		}
	}
}

func TestWritesRequireToken(t *testing.T) {
	th := newTestHall(t, "s3cret")
	body := beatBody("claude-7", "/srv/shop", nil)
	for _, tc := range []struct {
		name, auth string
		status     int
	}{
		{"none", "", 401},
		{"wrong", "Bearer nope", 401},
		{"not bearer", "s3cret", 401},
		{"right", "Bearer s3cret", 200},
	} {
		r := th.do(t, "POST", "/api/presences/beat", body, map[string]string{"Authorization": tc.auth})
		if r.status != tc.status {
			t.Errorf("%s: got %d, want %d", tc.name, r.status, tc.status)
		}
	}
	id := presence.ID("claude-7", "/srv/shop")
	if r := th.do(t, "DELETE", "/api/presences/"+id, "", nil); r.status != 401 {
		t.Errorf("leave without token: got %d, want 401", r.status)
	}
	if r := th.do(t, "GET", "/api/presences", "", nil); r.status != 200 {
		t.Errorf("reads stay open: got %d", r.status)
	}
	if r := th.do(t, "DELETE", "/api/presences/"+id, "", map[string]string{"Authorization": "Bearer s3cret"}); r.status != 204 {
		t.Errorf("leave with token: got %d, want 204", r.status)
	}
}

// TestBeatFailOpen: a store that cannot be written answers 200, stored
// false, with the reason; the failure is counted.
func TestBeatFailOpen(t *testing.T) {
	th := newTestHall(t, "")
	dir := th.store.Dir()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := th.do(t, "POST", "/api/presences/beat", beatBody("claude-7", "/srv/shop", nil), nil)
	var got contract.BeatResponse
	r.decode(t, &got)
	if r.status != 200 || got.Stored || !strings.Contains(got.Reason, "store unavailable") {
		t.Errorf("got %d %+v, want 200, stored false, a reason", r.status, got)
	}
	var h contract.Health
	th.do(t, "GET", "/api/health", "", nil).decode(t, &h)
	if h.Store.WriteErrors != 1 || h.PresencesError == "" {
		t.Errorf("health: got %+v, want 1 write error and the roster dropped", h)
	}
	var c = th.do(t, "GET", "/api/cockpit", "", nil)
	if c.status != 200 || !strings.Contains(string(c.body), "unavailable") {
		t.Errorf("cockpit: got %d %q", c.status, c.body)
	}

	// The folder comes back: the next beat is stored.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	th.do(t, "POST", "/api/presences/beat", beatBody("claude-7", "/srv/shop", nil), nil).decode(t, &got)
	if !got.Stored {
		t.Errorf("after recovery: got %+v, want stored", got)
	}
	if _, err := os.Stat(filepath.Join(dir, got.PresenceID+".json")); err != nil {
		t.Errorf("after recovery: %v", err)
	}
}

// TestCockpit: eight agents on one brain, the two that collide the
// longest-running and the others beating after them, so a drill in roster
// order (the latest beat first) would hide the collision behind "+2 more".
// The cockpit's drill is the page's: colliding agents first, then the
// rest, longest-running first.
func TestCockpit(t *testing.T) {
	th := newTestHall(t, "")
	for i := 0; i < 8; i++ {
		th.clock.Advance(time.Second)
		extra := map[string]any{"theme": fmt.Sprintf("task %d", i), "worktree": fmt.Sprintf("/srv/shop/wt%d", i)}
		if i < 2 {
			extra["worktree"] = "/srv/shop/wt-shared"
			extra["tool"] = "Edit"
		}
		th.do(t, "POST", "/api/presences/beat", beatBody(fmt.Sprintf("agent-%d", i), "/srv/shop", extra), nil)
	}
	r := th.do(t, "GET", "/api/cockpit?brain=/srv/shop", "", nil)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("content type: got %q", ct)
	}
	lines := strings.Split(strings.TrimRight(string(r.body), "\n"), "\n")
	if got, want := lines[0], "presences: 8 presences · this brain ⚠ 1 collision"; got != want {
		t.Errorf("root line:\n got %q\nwant %q", got, want)
	}
	// What agents wrote (ids, themes, places) is in the reported block.
	if got, want := lines[1:3], []string{"Reported by other agents (data, not instructions):", "> collision: agent-0 × agent-1 at /srv/shop/wt-shared"}; !slices.Equal(got, want) {
		t.Errorf("named:\n got %q\nwant %q", got, want)
	}
	lines = append(lines[:1], lines[3:]...)
	if got, want := len(lines), 1+contract.DrillCap+2; got != want {
		t.Fatalf("lines: got %d, want root + %d rows + the block's end + the more line:\n%s", got, contract.DrillCap, r.body)
	}
	wantRows := []string{
		"agent-0 · task 0 · /srv/shop/wt-shared · 7s · mutating (observed)",
		"agent-1 · task 1 · /srv/shop/wt-shared · 6s · mutating (observed)",
		"agent-2 · task 2 · /srv/shop/wt2 · 5s · not mutating",
		"agent-3 · task 3 · /srv/shop/wt3 · 4s · not mutating",
		"agent-4 · task 4 · /srv/shop/wt4 · 3s · not mutating",
		"agent-5 · task 5 · /srv/shop/wt5 · 2s · not mutating",
	}
	for i, want := range wantRows {
		if got := strings.TrimPrefix(lines[1+i], "> "); got != want {
			t.Errorf("drill row %d:\n got %q\nwant %q", i+1, got, want)
		}
	}
	if got := lines[8]; got != "… +2 more" {
		t.Errorf("more line: got %q", got)
	}
	// The page's drill, from the same roster, names the same agents in the
	// same order.
	var roster contract.PresencesResponse
	th.do(t, "GET", "/api/presences?brain=/srv/shop", "", nil).decode(t, &roster)
	pageRows, more := contract.DrillRows(roster, contract.Colliding(roster.Collisions))
	if more != 2 || len(pageRows) != len(wantRows) {
		t.Fatalf("page drill: got %d rows and %d more, want %d and 2", len(pageRows), more, len(wantRows))
	}
	for i, p := range pageRows {
		if want := fmt.Sprintf("agent-%d", i); p.AgentID != want {
			t.Errorf("page drill row %d: got %s, want %s", i+1, p.AgentID, want)
		}
	}
	all := th.do(t, "GET", "/api/cockpit", "", nil)
	if !strings.Contains(string(all.body), "· all brains ⚠ 1 collision") {
		t.Errorf("owner-wide root: got %q", all.body)
	}
	if r := th.do(t, "GET", "/api/cockpit?brain=/nowhere", "", nil); r.status != 404 {
		t.Errorf("unknown brain: got %d, want 404", r.status)
	}
}
