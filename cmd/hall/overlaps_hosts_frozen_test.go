package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
)

// TestOverlapAcrossHostsFrozenServer: two hosts in content mode share a
// NATS server that freezes (its connections stay open, nothing is
// answered: a hung host, a black-holed route) after they agreed on a
// conflict. While it is frozen, bob changes again and every surface of
// both Halls answers: the hook through the HTTP route and through
// hall-hook (within its own timeout, no error), the contract and health.
// When the server answers again, the sharing resumes by itself: bob's new
// change (a clean merge) is predicted by alpha and read by bravo. Neither
// clone changes. (A stopped server and a stopped peer are tested
// elsewhere; a server that accepts and never answers was not.)
func TestOverlapAcrossHostsFrozenServer(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	proxy := natstest.NewProxy(t, fmt.Sprintf("127.0.0.1:%d", srv.Port))
	h := hostsInConflict(t, proxy.URL())
	ana, bob, bobCart, alpha, bravo, beats := h.ana, h.bob, h.bobCart, h.alpha, h.bravo, h.beats
	merged := func(merge string) func(contract.Overlap) bool {
		return func(o contract.Overlap) bool { return o.Merge == merge && o.MergeHost == "alpha" }
	}
	for _, m := range []*Main{alpha, bravo} {
		overlapAt(t, m, beats, "a conflict predicted across hosts", merged(contract.MergeConflict))
	}

	proxy.Pause()
	gittest.WriteFile(t, bobCart, cart(map[int]string{15: "// bob's line 15"}))
	bobBefore := cloneFingerprint(t, bob)
	client := &http.Client{Timeout: faultWait} // an answer at all, not a measure of speed
	answers := func(what, method, url, body string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s while the server is frozen: %v", what, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s while the server is frozen: %d %s, want 200", what, resp.StatusCode, b)
		}
	}
	for range 3 { // the first request waits out the store's op timeout; later ones fail fast
		for _, s := range []struct {
			m     *Main
			clone string
		}{{alpha, ana}, {bravo, bob}} {
			host := s.m.Config.HostName
			payload := hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", s.clone, "")
			answers(host+"'s hook", http.MethodPost, s.m.URL()+"/api/hooks/claude", payload)
			hookPaths[1].call(t, s.m, "claude", payload, "warn") // hall-hook: no stderr, within its timeout
			answers(host+"'s contract", http.MethodGet, s.m.URL()+"/api/presences", "")
			answers(host+"'s health", http.MethodGet, s.m.URL()+"/api/health", "")
		}
	}

	proxy.Resume()
	// The hooks above made presences of their own (their sessions'
	// agents): the overlap of interest is ana's agent's with bob's.
	for _, m := range []*Main{alpha, bravo} {
		var o contract.Overlap
		eventually.True(t, natsWait, "a clean merge across hosts once the server answers, at "+m.Config.HostName, func() bool {
			beats()
			for _, c := range contractNow(t, m.URL()+"/api/presences").Overlaps {
				if agents := []string{c.A.AgentID, c.B.AgentID}; slices.Contains(agents, "claude-ana") && slices.Contains(agents, "claude-bob") {
					o = c
					return merged(contract.MergeClean)(o)
				}
			}
			return false
		})
		if o.Verdict != contract.VerdictOverlap || o.Across != contract.AcrossHost {
			t.Errorf("at %s after the freeze: %+v; want a clean overlap across hosts, by git on alpha", m.Config.HostName, o)
		}
	}
	if cloneFingerprint(t, ana) != h.anaBefore || cloneFingerprint(t, bob) != bobBefore {
		t.Error("a clone changed under the Halls")
	}
}
