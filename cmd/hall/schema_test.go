package main

// The published contract, enforced: every JSON body a running Hall sends —
// the roster, health, north, the recent events, beat answers, error bodies of several
// endpoints, the stream's snapshot and diff events, and the same surfaces
// while the registry cannot be read — is validated against the JSON
// Schemas the Hall itself serves at /api/schema/, compiled strict (a field
// no schema names fails). A change of the wire types or the handlers that
// the schemas do not follow fails here.

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// checkEvent validates one event's data against its schema.
func checkEvent(tb testing.TB, set *schematest.Set, ev stream.Event, where string) {
	tb.Helper()
	switch {
	case ev.Snapshot != nil:
		set.Check(tb, "snapshot", "snapshot "+ev.ID+" ("+where+")", ev.Data)
	case ev.Diff != nil:
		set.Check(tb, "diff", "diff "+ev.ID+" ("+where+")", ev.Data)
	default:
		tb.Errorf("event %s (%s) is neither a snapshot nor a diff", ev.ID, where)
	}
}

// call sends one request and returns the status, the Content-Type and the
// body.
func call(tb testing.TB, method, url, contentType string, body []byte) (int, string, []byte) {
	tb.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), got
}

// getChecked GETs path, requires 200 and validates the body.
func getChecked(tb testing.TB, set *schematest.Set, base, path, schemaName string) []byte {
	tb.Helper()
	status, _, body := call(tb, http.MethodGet, base+path, "", nil)
	if status != http.StatusOK {
		tb.Fatalf("GET %s: got %d %s, want 200", path, status, body)
	}
	set.Check(tb, schemaName, "GET "+path, body)
	return body
}

// beatChecked validates the beat's body against the request schema, posts
// it and validates the answer.
func beatChecked(tb testing.TB, set *schematest.Set, base string, b contract.BeatRequest) contract.BeatResponse {
	tb.Helper()
	body, err := json.Marshal(b)
	if err != nil {
		tb.Fatal(err)
	}
	set.Check(tb, "beat-request", "beat of "+b.AgentID, body)
	status, _, got := call(tb, http.MethodPost, base+"/api/presences/beat", "application/json", body)
	if status != http.StatusOK {
		tb.Fatalf("beat of %s: got %d %s, want 200", b.AgentID, status, got)
	}
	set.Check(tb, "beat-response", "answer to the beat of "+b.AgentID, got)
	var out contract.BeatResponse
	if err := json.Unmarshal(got, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestContractSchemasLive drives a real Hall through joins, updates,
// throttled beats, a collision opening, changing and closing, a leave,
// bad requests on every endpoint that takes input, and a registry that
// cannot be read, validating every body it answers and every event it
// streams.
func TestContractSchemasLive(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: 10 * time.Minute, Rescan: 200 * time.Millisecond, Brains: []string{"/srv/known"}})
	base := m.URL()
	set := schematest.FromHall(t, base, schematest.Strict)
	getChecked(t, set, base, "/api/schema/", "index")
	getChecked(t, set, base, "/api/schema", "index")
	for _, name := range set.Names() {
		resp, err := http.Get(base + schema.URLPrefix + name + schema.Suffix)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/schema+json" {
			t.Errorf("GET schema %s: got %d %q, want 200 application/schema+json", name, resp.StatusCode, ct)
		}
		req, _ := http.NewRequest(http.MethodGet, base+schema.URLPrefix+name+schema.Suffix, nil)
		req.Header.Set("If-None-Match", resp.Header.Get("ETag"))
		again, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		again.Body.Close()
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("GET schema %s with its ETag: got %d, want 304", name, again.StatusCode)
		}
	}

	events := streamtest.Follow(t, base+"/api/presences/stream", "")
	first := events.Next(t, "the first snapshot")
	if first.Snapshot == nil {
		t.Fatalf("first event %s is not a snapshot", first.ID)
	}
	checkEvent(t, set, first, "empty roster")

	// A roster that changes in every way the stream can say.
	const brain, wt = "/srv/shop", "/srv/shop/wt-1"
	ws := []string{"src/a.go", "src/b.go"}
	full := contract.BeatRequest{AgentID: "claude-7", Brain: brain, CallerRoot: wt, Kind: "executor", Theme: "checkout",
		Worktree: wt, WorkingSet: &ws, TaskRef: "msn_1", Tool: "Edit", DeclaredIntent: "mutate"}
	a := beatChecked(t, set, base, full)
	if !a.Stored {
		t.Errorf("first beat of claude-7: %+v, want stored", a)
	}
	if again := beatChecked(t, set, base, full); again.Stored || again.Reason == "" {
		t.Errorf("second beat of claude-7 within the throttle: %+v, want stored false with a reason", again)
	}
	b := beatChecked(t, set, base, contract.BeatRequest{AgentID: "codex-2", Brain: brain, Worktree: wt, DeclaredIntent: "mutate"})
	if len(b.North) != 1 {
		t.Errorf("codex-2 in claude-7's worktree: north %v, want one line", b.North)
	}
	full.Theme = "checkout, part two"
	beatChecked(t, set, base, full) // a changed declaration: an update
	overlap := []string{"src/a.go"}
	beatChecked(t, set, base, contract.BeatRequest{AgentID: "codex-2", Brain: brain, WorkingSet: &overlap}) // the collision grows a clause

	// A hook's beat, and a check: what each answers conforms too.
	hb := full
	hb.Hook = &contract.HookBeat{Moment: contract.MomentBefore, Command: "git add -A && git commit -m wip"}
	if got := beatChecked(t, set, base, hb); got.Hook == nil {
		t.Errorf("a hook's beat: %+v, want a hook answer", got)
	}
	checkReq, _ := json.Marshal(contract.CheckRequest{Brain: brain, Worktree: wt, Paths: []string{"src/a.go"}})
	set.Check(t, "check-request", "a check", checkReq)
	status, _, checked := call(t, http.MethodPost, base+"/api/presences/check", "application/json", checkReq)
	if status != http.StatusOK {
		t.Fatalf("check: got %d %s, want 200", status, checked)
	}
	set.Check(t, "check-response", "a check", checked)

	getChecked(t, set, base, "/api/presences", "presences")
	getChecked(t, set, base, "/api/presences?brain="+brain, "presences")
	getChecked(t, set, base, "/api/presences?brain=/srv/known", "presences")
	getChecked(t, set, base, "/api/north?presence_id="+a.PresenceID, "north")
	getChecked(t, set, base, "/api/north?agent_id=codex-2&brain="+brain, "north")
	getChecked(t, set, base, "/api/health", "health")
	for _, q := range []string{"?brain=" + brain, "?presence_id=" + a.PresenceID, "?collisions_only=1"} {
		ev := streamtest.Follow(t, base+"/api/presences/stream"+q, "").Next(t, "the snapshot of "+q)
		checkEvent(t, set, ev, q)
	}

	status, _, _ = call(t, http.MethodDelete, base+"/api/presences/"+b.PresenceID, "", nil)
	if status != http.StatusNoContent {
		t.Fatalf("leave of codex-2: got %d, want 204", status)
	}

	kinds := map[string]bool{}
	for !(kinds["joins"] && kinds["updates"] && kinds["leaves"] && kinds["collisions_opened"] && kinds["collisions_closed"]) {
		ev := events.Next(t, "a diff of every kind (seen so far: "+strings.Join(keys(kinds), ", ")+")")
		checkEvent(t, set, ev, "roster changes")
		if d := ev.Diff; d != nil {
			kinds["joins"] = kinds["joins"] || len(d.Joins) > 0
			kinds["updates"] = kinds["updates"] || len(d.Updates) > 0
			kinds["leaves"] = kinds["leaves"] || len(d.Leaves) > 0
			kinds["collisions_opened"] = kinds["collisions_opened"] || len(d.CollisionsOpened) > 0
			kinds["collisions_closed"] = kinds["collisions_closed"] || len(d.CollisionsClosed) > 0
		}
	}

	// The recent events, told of all of that.
	body := getChecked(t, set, base, "/api/events", "events")
	for _, want := range []string{`"type":"join"`, `"type":"leave"`, `"type":"collision_opened"`, `"type":"collision_closed"`, `"lasted_ms":`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("GET /api/events lacks %s: %s", want, body)
		}
	}
	getChecked(t, set, base, "/api/events?brain="+brain+"&limit=2", "events")

	// Error bodies, endpoint by endpoint.
	tooBig := `{"agent_id":"` + strings.Repeat("x", 70<<10) + `","brain":"/b"}`
	for _, tc := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"GET", "/api/presences?brain=relative/path", "", 400, "invalid_brain"},
		{"GET", "/api/presences?brain=/srv/unknown", "", 404, "unknown_brain"},
		{"GET", "/api/cockpit?brain=/srv/unknown", "", 404, "unknown_brain"},
		{"GET", "/api/north", "", 400, "missing_presence"},
		{"GET", "/api/north?presence_id=claude-7", "", 400, "invalid_presence_id"},
		{"GET", "/api/presences/stream?collisions_only=maybe", "", 400, "invalid_collisions_only"},
		{"GET", "/api/presences/stream?presence_id=nope", "", 400, "invalid_presence_id"},
		{"GET", "/api/presences/stream?brain=/srv/unknown", "", 404, "unknown_brain"},
		{"POST", "/api/presences/beat", `{"agent_id":`, 400, "malformed_json"},
		{"POST", "/api/presences/beat", `{"agent_id":"a","brain":"/b","mood":"happy"}`, 400, "malformed_json"},
		{"POST", "/api/presences/beat", `{"agent_id":"a"}`, 400, "invalid_beat"},
		{"POST", "/api/presences/beat", `{"agent_id":"a","brain":"/b","theme":"` + strings.Repeat("t", 201) + `"}`, 400, "field_too_large"},
		{"POST", "/api/presences/beat", tooBig, 413, "body_too_large"},
		{"POST", "/api/presences/beat", `{"agent_id":"a","brain":"/b","hook":{"moment":"whenever"}}`, 400, "invalid_beat"},
		{"POST", "/api/presences/check", `{}`, 400, "invalid_beat"},
		{"POST", "/api/presences/check", `{"brain":"/b","mood":"happy"}`, 400, "malformed_json"},
		{"POST", "/api/presences/check", `{"brain":"relative"}`, 400, "invalid_beat"},
		{"DELETE", "/api/presences/nope", "", 400, "invalid_presence_id"},
		{"DELETE", "/api/presences/" + presence.ID("nobody", brain), "", 404, "unknown_presence"},
		{"GET", "/api/schema/nope.schema.json", "", 404, "unknown_schema"},
		{"GET", "/api/events?limit=0", "", 400, "invalid_limit"},
		{"GET", "/api/events?brain=/srv/unknown", "", 404, "unknown_brain"},
		{"GET", "/fragments/nope", "", 404, "unknown_fragment"},
		{"GET", "/fragments/hall?brain=relative", "", 400, "invalid_brain"},
		{"GET", "/api/nope", "", 404, "not_found"},
		{"PUT", "/api/presences/beat", "{}", 405, "method_not_allowed"},
	} {
		status, ct, got := call(t, tc.method, base+tc.path, "application/json", []byte(tc.body))
		what := tc.method + " " + tc.path[:min(len(tc.path), 60)]
		if status != tc.status || !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: got %d %q, want %d JSON", what, status, ct, tc.status)
		}
		set.Check(t, "error", what, got)
		var e contract.ErrorResponse
		if err := json.Unmarshal(got, &e); err != nil || e.Error != tc.code {
			t.Errorf("%s: got %s, want error %q", what, got, tc.code)
		}
	}
	guarded := MustOpenHall(t, Config{Token: "s3cret"})
	status, _, got := call(t, http.MethodPost, guarded.URL()+"/api/presences/beat", "application/json", []byte(`{"agent_id":"a","brain":"/b"}`))
	if status != http.StatusUnauthorized {
		t.Errorf("beat without the token: got %d, want 401", status)
	}
	set.Check(t, "error", "beat without the token", got)

	// The registry unreadable: the presences folder replaced by a file.
	dir := filepath.Join(m.Config.RegistryRoot, "presences")
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a folder\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for {
		ev := events.Next(t, "the roster dropped")
		checkEvent(t, set, ev, "registry unreadable")
		if ev.Diff != nil && ev.Diff.Error == "registry_unreadable" {
			break
		}
	}
	body = getChecked(t, set, base, "/api/presences", "presences")
	if !bytes.Contains(body, []byte(`"error":"registry_unreadable"`)) {
		t.Errorf("contract while unreadable: %s, want registry_unreadable", body)
	}
	body = getChecked(t, set, base, "/api/health", "health")
	if !bytes.Contains(body, []byte(`"presences_error"`)) {
		t.Errorf("health while unreadable: %s, want presences_error", body)
	}
	body = getChecked(t, set, base, "/api/north?presence_id="+a.PresenceID, "north")
	if !bytes.Contains(body, []byte(`"error":"registry_unreadable"`)) {
		t.Errorf("north while unreadable: %s, want registry_unreadable", body)
	}
	late := streamtest.Follow(t, base+"/api/presences/stream", "").Next(t, "a snapshot while unreadable")
	checkEvent(t, set, late, "registry unreadable")
	if late.Snapshot == nil || late.Snapshot.Error != "registry_unreadable" {
		t.Errorf("snapshot while unreadable: %s, want registry_unreadable", late.Data)
	}
	body = getChecked(t, set, base, "/api/events?limit=1", "events")
	if !bytes.Contains(body, []byte(`"type":"registry_unreadable"`)) {
		t.Errorf("events while unreadable: %s, want registry_unreadable first", body)
	}
	beatChecked(t, set, base, contract.BeatRequest{AgentID: "outage", Brain: brain}) // stored false, the store failed
	fams := scrapeMetrics(t, base)
	if f := fams["hall_registry_unreadable"]; f == nil || sample(f) != 1 || fams["hall_presences_live"] != nil || fams["hall_store_listing_errors_total"] == nil || sample(fams["hall_store_listing_errors_total"]) < 1 {
		t.Errorf("metrics while unreadable: registry_unreadable %v, presences_live %v, listing errors %v; want 1, absent, ≥ 1",
			fams["hall_registry_unreadable"], fams["hall_presences_live"], fams["hall_store_listing_errors_total"])
	}
	if f := fams["hall_store_write_errors_total"]; f == nil || sample(f) < 1 {
		t.Errorf("metrics after a beat the store refused: write errors %v, want ≥ 1", f)
	}

	// Back: the diff that recovers says so by dropping error.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir+".away", dir); err != nil {
		t.Fatal(err)
	}
	for {
		ev := events.Next(t, "the roster back")
		checkEvent(t, set, ev, "registry readable again")
		if ev.Diff != nil && ev.Diff.Error == "" {
			break
		}
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	return out
}
