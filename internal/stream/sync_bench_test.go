package stream

import (
	"context"
	"fmt"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// flipSource answers two rosters by turns: every sync is one diff.
type flipSource struct {
	a, b presence.Snapshot
	n    int
}

func (s *flipSource) Snapshot(context.Context) (presence.Snapshot, error) {
	s.n++
	if s.n%2 == 0 {
		return s.a, nil
	}
	return s.b, nil
}
func (s *flipSource) Changed() <-chan struct{} { return nil }

// BenchmarkHubSync measures the hub's own share of one change over 1,000
// presences and their collisions, the roster keyed, diffed and the change
// recorded, with no subscriber (the fan-out is measured apart):
//
//	go test -run '^$' -bench HubSync -benchmem ./internal/stream/
func BenchmarkHubSync(b *testing.B) {
	live := make([]presence.Record, 1000)
	for i := range live {
		agent := fmt.Sprintf("agent-%d", i)
		brain := fmt.Sprintf("/srv/b%d", i%50)
		live[i] = presence.Record{Schema: presence.Schema, PresenceID: presence.ID(agent, brain), AgentID: agent, Brain: brain, LastBeatMs: 1e12, TTLMs: 1e9,
			Worktree: fmt.Sprintf("%s/wt%d", brain, i%7), WorkingSet: []string{"src/", "go.mod"}, Mutation: presence.Mutation{DeclaredIntent: "mutate"}}
	}
	snapA := presence.Snapshot{Live: live, Collisions: presencetest.CollisionsIn("", live)}
	live2 := append([]presence.Record(nil), live...)
	live2[5].Theme = "changed"
	snapB := presence.Snapshot{Live: live2, Collisions: presencetest.CollisionsIn("", live2)}
	h := NewHub(&flipSource{a: snapA, b: snapB}, Config{})
	ctx := context.Background()
	for b.Loop() {
		h.sync(ctx, false)
	}
}
