package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// The types below are a client of the Hall written to m1nd-ui's types
// (repository maxkle1nz/m1nd, m1nd-ui/src/types.ts: PresenceResponse,
// PresenceEntry, PresenceMutation, PresenceCollision, ServedBrain), field
// for field: `T | null` is a pointer, `?` an optional field, a TypeScript
// number a float64. uiDecode reads them strictly: a required field missing
// or null, a field of another type, or a reason outside m1nd's two fails.
// The Hall's own fields beside them are ignored, as a TypeScript client
// ignores them.
type uiResponse struct {
	Presences   []uiEntry      `json:"presences"`
	Collisions  *[]uiCollision `json:"collisions"` // absent: a pre-P1 owner (the Hall always sends it)
	ServedBrain *uiServedBrain `json:"served_brain"`
}

type uiEntry struct {
	AgentID     string     `json:"agent_id"`
	Root        string     `json:"root"`
	CallerRoot  *string    `json:"caller_root"`
	FirstSeenMs float64    `json:"first_seen_ms"`
	LastSeenMs  float64    `json:"last_seen_ms"`
	QueryCount  float64    `json:"query_count"`
	Mutation    uiMutation `json:"mutation"`
	TaskRef     *string    `json:"task_ref"`
}

type uiMutation struct {
	ObservedAtMs   *float64 `json:"observed_at_ms"`
	DeclaredIntent *string  `json:"declared_intent"`
}

type uiCollision struct {
	BrainRoot  string   `json:"brain_root"`
	CallerRoot *string  `json:"caller_root"`
	AgentIDs   []string `json:"agent_ids"`
	Reason     uiReason `json:"reason"`
}

type uiServedBrain struct {
	ProjectRoot *string `json:"project_root"`
	DisplayName *string `json:"display_name"`
}

// uiReason is PresenceCollisionReason: 'same_worktree' | 'declared_overlap'.
type uiReason string

func (r *uiReason) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s != "same_worktree" && s != "declared_overlap" {
		return fmt.Errorf("reason %q is not a PresenceCollisionReason", s)
	}
	*r = uiReason(s)
	return nil
}

// uiRequired names each object's fields that m1nd-ui's types require
// (neither optional nor nullable).
var uiRequired = map[string][]string{
	"response":     {"presences"},
	"entry":        {"agent_id", "root", "first_seen_ms", "last_seen_ms", "query_count", "mutation"},
	"collision":    {"brain_root", "agent_ids", "reason"},
	"served_brain": {"project_root", "display_name"}, // both required, both nullable
}

// uiDecode decodes a roster strictly into m1nd-ui's types.
func uiDecode(body []byte) (uiResponse, error) {
	var out uiResponse
	if err := json.Unmarshal(body, &out); err != nil {
		return out, fmt.Errorf("mistyped: %w", err)
	}
	var raw struct {
		Presences   []map[string]json.RawMessage `json:"presences"`
		Collisions  []map[string]json.RawMessage `json:"collisions"`
		ServedBrain map[string]json.RawMessage   `json:"served_brain"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return out, err
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return out, err
	}
	check := func(kind string, m map[string]json.RawMessage, nullable bool) error {
		for _, f := range uiRequired[kind] {
			v, ok := m[f]
			if !ok || (!nullable && string(v) == "null") {
				return fmt.Errorf("%s: missing %s", kind, f)
			}
		}
		return nil
	}
	if err := check("response", top, false); err != nil {
		return out, err
	}
	for _, m := range raw.Presences {
		if err := check("entry", m, false); err != nil {
			return out, err
		}
		if string(m["mutation"])[0] != '{' {
			return out, fmt.Errorf("entry: mutation %s is not an object", m["mutation"])
		}
	}
	for _, m := range raw.Collisions {
		if err := check("collision", m, false); err != nil {
			return out, err
		}
	}
	if raw.ServedBrain != nil {
		if err := check("served_brain", raw.ServedBrain, true); err != nil {
			return out, err
		}
	}
	return out, nil
}

// uiRender says a roster as m1nd-ui's presence strip does: a collision
// line per collision ("N agents writing in the same worktree — ids ·
// place" for any reason but declared_overlap, the place being the
// collision's caller_root, else its brain_root; "N agents have
// overlapping declared work — ids · brain" for declared_overlap), then a
// row per presence: agent, where (the root's base name, and the
// caller_root's when it differs), the mutation it shows, the task.
func uiRender(r uiResponse) []string {
	var out []string
	for _, c := range *r.Collisions {
		ids := strings.Join(c.AgentIDs, ", ")
		if c.Reason == "declared_overlap" {
			out = append(out, fmt.Sprintf("%d agents have overlapping declared work — %s · %s", len(c.AgentIDs), ids, path.Base(c.BrainRoot)))
			continue
		}
		place := c.BrainRoot
		if c.CallerRoot != nil && strings.TrimSpace(*c.CallerRoot) != "" {
			place = *c.CallerRoot
		}
		out = append(out, fmt.Sprintf("%d agents writing in the same worktree — %s · %s", len(c.AgentIDs), ids, path.Base(place)))
	}
	for _, p := range r.Presences {
		where := path.Base(p.Root)
		if p.CallerRoot != nil && *p.CallerRoot != "" && *p.CallerRoot != p.Root {
			where += " · " + path.Base(*p.CallerRoot)
		}
		signal := "none"
		switch {
		case p.Mutation.ObservedAtMs != nil:
			signal = "observed"
		case p.Mutation.DeclaredIntent != nil && strings.TrimSpace(*p.Mutation.DeclaredIntent) != "":
			signal = "declared"
		}
		row := fmt.Sprintf("%s %s [%s]", p.AgentID, where, signal)
		if p.TaskRef != nil {
			row += " · " + *p.TaskRef
		}
		if p.LastSeenMs <= 0 || p.FirstSeenMs <= 0 || p.FirstSeenMs > p.LastSeenMs {
			row += " (no age)" // the strip's age comes from last_seen_ms
		}
		out = append(out, row)
	}
	return out
}

// uiGet fetches a roster as m1nd-ui's client does: a 404 is an empty
// roster (an unknown brain), anything else but 200 an error.
func uiGet(t *testing.T, u string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// TestP1UIClientRendersTheHall: a client written to m1nd-ui's types reads
// the Hall's roster owner-wide and for one brain, collisions of both of
// m1nd's reasons (a shared caller_root, a shared worktree, declared
// working sets) and a pair that meets only at a file both were seen
// changing, and an unknown brain, with no field missing or mistyped, and
// renders what m1nd's presence strip would say.
// p1uiHall runs a Hall whose roster holds, on brain shop, pairs that
// share a caller_root, a worktree, a declared working-set path and a file
// both were seen changing (each pair mutating), and on brain docs one
// reader with a task whose caller_root is the brain.
func p1uiHall(t *testing.T) (m *Main, shop, docs string) {
	t.Helper()
	m = MustOpenHall(t, Config{TTL: time.Minute})
	root := m.Config.RegistryRoot
	base := t.TempDir()
	shop, docs = filepath.Join(base, "shop"), filepath.Join(base, "docs")
	for _, d := range []string{shop, docs} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	now := nowMs()
	mutating := func(agent string, opts ...presencetest.Option) presence.Record {
		opts = append([]presencetest.Option{presencetest.Intent("mutate"), presencetest.Observed(1)}, opts...)
		opts = append(opts, presencetest.At(now), presencetest.TTL(10*60*1000))
		return presencetest.Rec(agent, shop, opts...)
	}
	shared := filepath.Join(shop, "lib", "shared.go")
	touched := filepath.Join(shop, "lib", "cart.go")
	records := []presence.Record{
		mutating("hand-a", presencetest.CallerRoot(filepath.Join(shop, "wt-a"))),
		mutating("hand-b", presencetest.CallerRoot(filepath.Join(shop, "wt-a"))),
		mutating("hand-c", presencetest.Worktree(filepath.Join(shop, "wt-c")), presencetest.CallerRoot(filepath.Join(shop, "wt-c", "x"))),
		mutating("hand-d", presencetest.Worktree(filepath.Join(shop, "wt-c")), presencetest.CallerRoot(filepath.Join(shop, "wt-c", "y"))),
		mutating("hand-e", presencetest.CallerRoot(filepath.Join(shop, "wt-e")), presencetest.WS(shared)),
		mutating("hand-f", presencetest.CallerRoot(filepath.Join(shop, "wt-f")), presencetest.WS(shared)),
		mutating("hand-g", presencetest.CallerRoot(filepath.Join(shop, "wt-g")), presencetest.Touched(touched)),
		mutating("hand-h", presencetest.CallerRoot(filepath.Join(shop, "wt-h")), presencetest.Touched(touched)),
		presencetest.Rec("reader", docs, presencetest.CallerRoot(docs), presencetest.NoMutation(), presencetest.At(now), presencetest.TTL(10*60*1000),
			func(r *presence.Record) { r.TaskRef = "msn_000000000000_neutral" }),
	}
	for _, r := range records {
		dirstoretest.Upsert(t, root, r)
	}
	eventually.True(t, wait, "the whole roster to be served", func() bool {
		return len(contractNow(t, m.URL()+"/api/presences").Presences) == len(records)
	})
	return m, shop, docs
}

// p1uiCollisions is what m1nd's strip says of p1uiHall's collisions,
// sorted, each pair's agents sorted (agent_ids come a's then b's, by
// presence id).
var p1uiCollisions = []string{
	"2 agents have overlapping declared work — hand-e, hand-f · shop",
	"2 agents writing in the same worktree — hand-a, hand-b · wt-a",
	"2 agents writing in the same worktree — hand-c, hand-d · wt-c",
	"2 agents writing in the same worktree — hand-g, hand-h · shop", // touched only: no caller_root or worktree shared
}

// p1uiLines parts rendered lines into collision lines (prefix true) or
// rows, sorted, each collision's pair of agents sorted.
func p1uiLines(lines []string, prefix bool) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "2 agents") == prefix {
			out = append(out, l)
		}
	}
	for i, l := range out {
		if head, rest, ok := strings.Cut(l, " — "); ok && prefix {
			ids, place, _ := strings.Cut(rest, " · ")
			pair := strings.Split(ids, ", ")
			slices.Sort(pair)
			out[i] = head + " — " + strings.Join(pair, ", ") + " · " + place
		}
	}
	slices.Sort(out)
	return out
}

func TestP1UIClientRendersTheHall(t *testing.T) {
	m, shop, docs := p1uiHall(t)
	base := filepath.Dir(shop)
	read := func(q string) (uiResponse, []string) {
		t.Helper()
		status, body := uiGet(t, m.URL()+"/api/presences"+q)
		if status != http.StatusOK {
			t.Fatalf("GET /api/presences%s: status %d: %s", q, status, body)
		}
		r, err := uiDecode(body)
		if err != nil {
			t.Fatalf("GET /api/presences%s: m1nd-ui cannot read it: %v\nbody: %s", q, err, body)
		}
		if r.Collisions == nil {
			t.Fatalf("GET /api/presences%s: no collisions field: the UI would derive its own", q)
		}
		return r, uiRender(r)
	}

	all, lines := read("")
	if all.ServedBrain != nil {
		t.Errorf("owner-wide: served_brain %+v, want absent", all.ServedBrain)
	}
	if got := p1uiLines(lines, true); !slices.Equal(got, p1uiCollisions) {
		t.Errorf("owner-wide collisions:\ngot  %q\nwant %q", got, p1uiCollisions)
	}
	rows := p1uiLines(lines, false)
	for _, want := range []string{
		"hand-a shop · wt-a [observed]",
		"hand-c shop · x [observed]",
		"reader docs [none] · msn_000000000000_neutral", // caller_root equal to the root: absent
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("owner-wide rows: no %q in %q", want, rows)
		}
	}
	for _, p := range all.Presences {
		if p.AgentID == "reader" && p.CallerRoot != nil {
			t.Errorf("reader: caller_root %q equal to its root is sent; m1nd omits it", *p.CallerRoot)
		}
	}

	one, lines := read("?brain=" + url.QueryEscape(docs))
	if one.ServedBrain == nil || one.ServedBrain.ProjectRoot == nil || *one.ServedBrain.ProjectRoot != docs || one.ServedBrain.DisplayName != nil {
		t.Errorf("brain scope: served_brain %+v, want {project_root %q, display_name null}", one.ServedBrain, docs)
	}
	if want := []string{"reader docs [none] · msn_000000000000_neutral"}; !slices.Equal(lines, want) {
		t.Errorf("brain scope: got %q, want %q", lines, want)
	}

	status, body := uiGet(t, m.URL()+"/api/presences?brain="+url.QueryEscape(filepath.Join(base, "nowhere")))
	var refusal struct {
		Error  string `json:"error"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(body, &refusal); status != http.StatusNotFound || err != nil || refusal.Error != "unknown_brain" || refusal.Detail == "" {
		t.Errorf("unknown brain: got %d %s, want 404 unknown_brain (the UI shows an empty roster)", status, body)
	}
}
