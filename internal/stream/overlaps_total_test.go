package stream

import (
	"context"
	"log/slog"
	"testing"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/presence"
)

// listedOne is an overlap finder whose brain's bound listed one of the
// presence's three overlaps.
type listedOne struct{ id string }

func (f listedOne) Overlaps(_ context.Context, live []presence.Record) ([]presence.Overlap, presence.OverlapCounts) {
	if len(live) == 0 {
		return nil, presence.OverlapCounts{}
	}
	o := presence.Overlap{ID: f.id + "~prs_ffffffffffff", Brain: live[0].Brain, Verdict: "overlap", Merge: "unknown",
		A: presence.OverlapSide{PresenceID: f.id}, B: presence.OverlapSide{PresenceID: "prs_ffffffffffff"}}
	return []presence.Overlap{o}, presence.OverlapCounts{Brains: map[string]int{live[0].Brain: 3}, Presences: map[string]int{f.id: 3}}
}

// TestPresenceSnapshotCountsEveryOverlap: a presence's stream snapshot
// says overlaps_total of all its overlaps, not of the listed one.
func TestPresenceSnapshotCountsEveryOverlap(t *testing.T) {
	id := presence.ID("claude-1", "/srv/shop")
	svc := presence.NewService(dirstoretest.Open(t), presence.Config{Logger: slog.New(slog.DiscardHandler), Overlaps: listedOne{id}})
	if _, err := svc.Beat(t.Context(), presence.Beat{AgentID: "claude-1", Brain: "/srv/shop", Worktree: "/srv/shop-1", Tool: "Edit"}); err != nil {
		t.Fatal(err)
	}
	snap, err := svc.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Filter{{PresenceID: id}, {PresenceID: id, Brain: "/srv/shop"}} {
		if r := f.response(snap, nil, ""); len(r.Overlaps) != 1 || r.OverlapsTotal != 3 {
			t.Errorf("filter %+v: %d listed, total %d; want 1 listed, total 3", f, len(r.Overlaps), r.OverlapsTotal)
		}
	}
	if r := (Filter{PresenceID: id, Brain: "/srv/other"}).response(snap, nil, ""); r.OverlapsTotal != 0 {
		t.Errorf("on another brain: total %d, want 0", r.OverlapsTotal)
	}
}
