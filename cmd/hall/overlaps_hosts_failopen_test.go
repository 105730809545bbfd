package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
)

// TestOverlapAcrossHostsBoardGone: two hosts share content and alpha
// predicts their conflict. Then the board fails under them (its bucket
// deleted: the server answers every read and write of it with an error)
// while the registry still works: alpha's overlap says why its merge is
// unknown, board_unreachable, and its hooks answer. Then the server
// stops altogether: a hook on alpha still answers, exit 0 (the hook's own
// timeout bounds it), a beat gets an answer, and the sharer's verdict is
// board_unreachable.
func TestOverlapAcrossHostsBoardGone(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	h := hostsInConflict(t, srv.URL())
	ana, bob, bobCart, alpha, beats := h.ana, h.bob, h.bobCart, h.alpha, h.beats
	overlapAt(t, alpha, beats, "a conflict predicted across hosts", func(o contract.Overlap) bool { return o.Merge == contract.MergeConflict })

	// The board's bucket goes; the registry's stays.
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	err = js.DeleteKeyValue(ctx, natsstore.DefaultBoardBucket)
	cancel()
	nc.Close()
	if err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, bobCart, cart(map[int]string{5: "// bob's line 5, again"}))
	overlapAt(t, alpha, beats, "board_unreachable", func(o contract.Overlap) bool {
		return o.Merge == contract.MergeUnknown && o.MergeReason == contract.MergeReasonUnreachable
	})
	hook := hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", ana, "")
	for _, p := range hookPaths {
		p.call(t, alpha, "claude", hook, "warn") // each fails the test unless it answers
	}

	// The server stops.
	srv.Shutdown()
	srv.WaitForShutdown()
	if code, _, stderr := runCLI(t, hook, "beat", "--hook", "claude", "--hall", alpha.URL(), "--on-collision", "warn"); code != 0 {
		t.Errorf("hall beat --hook with the store gone: exit %d, stderr %q; want 0", code, stderr)
	}
	body, _ := json.Marshal(editBeat("claude-ana", ana))
	resp, err := http.Post(alpha.URL()+"/api/presences/beat", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("a beat with the store gone got no answer: %v", err)
	}
	var e contract.ErrorResponse
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode == http.StatusOK && e.Error != "" {
		t.Errorf("a beat with the store gone: %d %+v %v", resp.StatusCode, e, err)
	}
	resp.Body.Close()
	local, peer := hall.PeerSide{Host: "alpha", Worktree: ana}, hall.PeerSide{Host: "bravo", Worktree: bob}
	eventually.True(t, natsWait, "alpha's verdict board_unreachable", func() bool {
		v, ok := alpha.Peers.Verdict(local, peer)
		return ok && v.Merge == contract.MergeUnknown && v.Reason == contract.MergeReasonUnreachable
	})
}
