package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// The soak's simulated agents: each joins a brain, beats every second or
// two, now and then switches worktree, declares a new working set (some
// paths absolute, so sets overlap across worktrees), runs a mutating tool,
// goes silent until its ttl lapses, or leaves; then comes back.
const (
	soakBrains    = 6
	soakWorktrees = 24 // per brain: about two agents share each
)

// soakPaths are the working-set paths agents pick from; they resolve
// against the agent's worktree, so they overlap within one. soakShared are
// absolute (under the brain), shared by every worktree: one set in ten
// holds one, so sets overlap across worktrees too.
var (
	soakPaths  = []string{"src/api", "src/api/handler.go", "src/ui", "src/ui/page.go", "docs", "go.mod"}
	soakShared = []string{"shared/config", "shared/config/app.yaml", "shared/schema"}
)

// agentStats counts what the agents did, across all of them.
type agentStats struct {
	beats, beatErrors, stored, joins, leaves, silences, switches, leaveErrors atomic.Int64
}

// soakAgent is one simulated agent.
type soakAgent struct {
	id, brain string
	client    *http.Client
	url       string
	ttl       time.Duration
	rng       *rand.Rand
	st        *agentStats

	present  bool // it has a presence now (joined, not yet left or lapsed)
	worktree string
	set      []string
}

// newSoakAgent returns agent i. Each has its own connection, kept alive,
// as a long-lived agent runtime would: the Hall's connection count is flat
// from the first beat on, so a growth in goroutines is the Hall's own.
func newSoakAgent(i int, url string, ttl time.Duration, st *agentStats) *soakAgent {
	brain := fmt.Sprintf("/soak/brain-%d", i%soakBrains)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	return &soakAgent{
		id: fmt.Sprintf("soak-%03d", i), brain: brain, client: client, url: url, ttl: ttl, st: st,
		rng: rand.New(rand.NewPCG(uint64(i), 0x5eed)),
	}
}

// run drives the agent until ctx ends; its last act is one more beat when
// it is present, so the roster holds still for a ttl after the soak stops.
func (a *soakAgent) run(ctx context.Context, final context.Context) {
	// Spread the first joins over two seconds.
	if !sleepCtx(ctx, time.Duration(a.rng.IntN(2000))*time.Millisecond) {
		return
	}
	for ctx.Err() == nil {
		a.join(final)
		for ctx.Err() == nil {
			if !sleepCtx(ctx, time.Duration(1000+a.rng.IntN(1000))*time.Millisecond) {
				break
			}
			switch r := a.rng.Float64(); {
			case r < 0.015: // goes silent: no beat until its ttl lapses
				a.st.silences.Add(1)
				a.present = false
				sleepCtx(ctx, a.ttl+time.Duration(500+a.rng.IntN(2500))*time.Millisecond)
			case r < 0.03: // leaves cleanly
				a.leave(final)
				sleepCtx(ctx, time.Duration(500+a.rng.IntN(3000))*time.Millisecond)
			case r < 0.08:
				a.switchWorktree()
				a.beat(final, "Read", "")
			case r < 0.16:
				a.pickSet()
				a.beat(final, "Read", "")
			case r < 0.26:
				a.beat(final, "Edit", "") // a mutation observed
			case r < 0.30:
				a.beat(final, "", "refactor "+a.worktree)
			default:
				a.beat(final, "Read", "")
			}
			if !a.present {
				break
			}
		}
	}
	if a.present {
		a.beat(final, "Read", "")
	}
}

func (a *soakAgent) join(ctx context.Context) {
	a.switchWorktree()
	a.pickSet()
	a.st.joins.Add(1)
	a.beat(ctx, "Read", "")
}

func (a *soakAgent) switchWorktree() {
	a.st.switches.Add(1)
	a.worktree = fmt.Sprintf("%s/wt-%02d", a.brain, a.rng.IntN(soakWorktrees))
}

func (a *soakAgent) pickSet() {
	n := 1 + a.rng.IntN(3)
	a.set = a.set[:0]
	for _, i := range a.rng.Perm(len(soakPaths))[:n] {
		a.set = append(a.set, soakPaths[i])
	}
	if a.rng.IntN(10) == 0 {
		a.set = append(a.set, a.brain+"/"+soakShared[a.rng.IntN(len(soakShared))])
	}
}

func (a *soakAgent) beat(ctx context.Context, tool, intent string) {
	set := append([]string{}, a.set...)
	body, _ := json.Marshal(contract.BeatRequest{
		AgentID: a.id, Brain: a.brain, CallerRoot: a.worktree, Kind: "executor", Theme: "soak " + a.id,
		Worktree: a.worktree, WorkingSet: &set, Tool: tool, DeclaredIntent: intent,
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, a.url+"/api/presences/beat", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	a.st.beats.Add(1)
	resp, err := a.client.Do(req)
	if err != nil {
		a.st.beatErrors.Add(1)
		return
	}
	defer resp.Body.Close()
	var out contract.BeatResponse
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		a.st.beatErrors.Add(1)
		return
	}
	if out.Stored {
		a.st.stored.Add(1)
	}
	a.present = true
}

func (a *soakAgent) leave(ctx context.Context) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, a.url+"/api/presences/"+presence.ID(a.id, a.brain), nil)
	resp, err := a.client.Do(req)
	a.present = false
	if err != nil {
		a.st.leaveErrors.Add(1)
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		a.st.leaveErrors.Add(1)
		return
	}
	a.st.leaves.Add(1)
}

// sleepCtx sleeps d, or less when ctx ends first; false when it did.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
