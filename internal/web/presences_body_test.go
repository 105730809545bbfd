package web

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// TestRosterBodyMatchesWriteJSON: the cached, spliced encoding of the
// contract is byte for byte what encoding the response afresh gives, for
// hostile strings too.
func TestRosterBodyMatchesWriteJSON(t *testing.T) {
	live := []presence.Record{
		{PresenceID: "prs_aaaaaaaaaaaa", AgentID: `claude "7" <script>`, Brain: "/srv/shop", Worktree: "/srv/wt", Theme: `"served_at_ms":-7433000000001`, Mutation: presence.Mutation{ObservedAtMs: 5}, LastBeatMs: 10},
		{PresenceID: "prs_bbbbbbbbbbbb", AgentID: "codex-2", Brain: "/srv/shop", Worktree: "/srv/wt", WorkingSet: []string{"a&b"}, Mutation: presence.Mutation{DeclaredIntent: "x"}, LastBeatMs: 9},
	}
	snap := presence.Snapshot{AtMs: 123, Live: live, Collisions: presencetest.CollisionsIn("", live)}
	for _, brain := range []string{"", "/srv/shop"} {
		for _, served := range []int64{0, 1764489660000} {
			want := httptest.NewRecorder()
			resp := contract.FromSnapshot(snap.ForBrain(brain), brain)
			resp.Cursor, resp.ServedAtMs = "42", served
			httpwire.WriteJSON(want, 200, resp)
			cached := contract.FromSnapshot(snap.ForBrain(brain), brain)
			cached.Cursor = "42"
			got := encodeRosterBody(cached, "42").response(served)
			if !bytes.Equal(got, want.Body.Bytes()) {
				t.Errorf("brain %q served %d:\n got %s\nwant %s", brain, served, got, want.Body.Bytes())
			}
		}
	}
}
