package main

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// TestM1ndRecordsReadByARunningHall: records written exactly as m1nd's
// write_presence writes them (serde_json's pretty form, no trailing
// newline, <id>.tmp then renamed) are read by a running Hall and shown,
// m1nd's collision found on m1nd's fields alone, and every file is left
// byte for byte as m1nd wrote it.
func TestM1ndRecordsReadByARunningHall(t *testing.T) {
	root := t.TempDir()
	brain := filepath.Join(t.TempDir(), "m1nd")
	if err := os.Mkdir(brain, 0o755); err != nil {
		t.Fatal(err)
	}
	now := uint64(nowMs())
	rec := func(agent string) presencetest.M1ndRecord {
		return presencetest.M1ndRecord{Schema: presence.Schema, PresenceID: presence.ID(agent, brain), AgentID: agent, Brain: brain,
			FirstSeenMs: now - 60_000, LastBeatMs: now, QueryCount: 7, TTLMs: 120_000}
	}
	// Two hands in one declared worktree, both mutating: m1nd's collision.
	a, b := rec("hand-a"), rec("hand-b")
	a.Worktree, b.Worktree = presencetest.Some("feat/x"), presencetest.Some("feat/x")
	a.DeclaredIntent, b.ObservedAtMs = presencetest.Some("mutate"), presencetest.Some(now-1000)
	// A declared reader in the same worktree: no signal, no collision.
	reader := rec("reader")
	reader.Worktree, reader.DeclaredIntent = presencetest.Some("feat/x"), presencetest.Some("read")
	// Past every limit a beat is held to, which m1nd does not know.
	long := rec("exec-long")
	long.Theme = presencetest.Some(strings.Repeat("é", 300))
	long.TaskRef = presencetest.Some("msn_" + strings.Repeat("0", 200))
	for i := range 100 {
		long.WorkingSet = append(long.WorkingSet, "src/f"+strconv.Itoa(i)+".rs")
	}
	files := map[string][]byte{}
	for _, r := range []presencetest.M1ndRecord{a, b, reader, long} {
		files[r.PresenceID] = presencetest.WriteM1nd(t, root, r)
	}

	m := MustOpenHall(t, Config{RegistryRoot: root})
	var body struct {
		Presences []struct {
			PresenceID string `json:"presence_id"`
			AgentID    string `json:"agent_id"`
		} `json:"presences"`
		Collisions []struct {
			CollisionID string   `json:"collision_id"`
			Clauses     []string `json:"clauses"`
		} `json:"collisions"`
	}
	if got := getJSON(t, m.URL()+"/api/presences", &body); got != http.StatusOK {
		t.Fatalf("status: got %d, want 200", got)
	}
	var agents []string
	for _, p := range body.Presences {
		agents = append(agents, p.AgentID)
	}
	slices.Sort(agents)
	if want := []string{"exec-long", "hand-a", "hand-b", "reader"}; !slices.Equal(agents, want) {
		t.Errorf("roster: got %v, want %v (every record m1nd wrote)", agents, want)
	}
	ids := []string{a.PresenceID, b.PresenceID}
	slices.Sort(ids)
	if len(body.Collisions) != 1 || body.Collisions[0].CollisionID != ids[0]+"~"+ids[1] || !slices.Contains(body.Collisions[0].Clauses, "same_worktree") {
		t.Errorf("collisions: got %+v, want hand-a with hand-b, same_worktree (the declared worktree feat/x)", body.Collisions)
	}
	for id, want := range files {
		got, err := os.ReadFile(filepath.Join(root, "presences", id+".json"))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s after the Hall read it: the file changed (%v)", id, err)
		}
	}
}
