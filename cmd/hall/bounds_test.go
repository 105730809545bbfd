package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream/streamtest"
	"github.com/hall-dev/hall/views"
)

// TestCrowdedWorktreeIsBounded: n mutating agents beat a real Hall in one
// worktree, n·(n-1)/2 colliding pairs. Every surface lists a bounded part
// of them and counts them all: the contract (per brain and owner-wide), the
// stream's snapshot and the view its diffs rebuild, health, north and a
// beat's answer, the cockpit, the page and `hall watch`. The sizes are
// asserted, never the time.
func TestCrowdedWorktreeIsBounded(t *testing.T) {
	for _, tc := range []struct {
		agents  int
		maxBody int // bytes, for each JSON surface; the page gets twice that
	}{
		{300, 3 << 20},
		{1000, 3 << 20},
	} {
		t.Run(fmt.Sprintf("agents=%d", tc.agents), func(t *testing.T) {
			if testing.Short() && tc.agents > 300 {
				t.Skip("-short: the 300-agent case covers the same ground")
			}
			crowdedWorktree(t, tc.agents, tc.maxBody)
		})
	}
}

func crowdedWorktree(t *testing.T, n, maxBody int) {
	m := MustOpenHall(t, Config{})
	base := m.URL()
	brain := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(brain, 0o755); err != nil {
		t.Fatal(err)
	}
	wt := brain // the brain's own checkout: every agent's worktree and caller_root
	total := n * (n - 1) / 2
	limit := presence.DefaultMaxCollisions

	// A stream follows from the start: its view must end equal to the
	// contract though the bounded list churns as agents join in any order
	// (a pair earlier by id pushes a later one out).
	w := streamtest.Follow(t, base+"/api/presences/stream", "")

	agents := make([]string, n)
	for i := range agents {
		agents[i] = fmt.Sprintf("crowd-%04d", i)
	}
	var wg sync.WaitGroup
	work := make(chan string)
	for k := 0; k < 8; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for a := range work {
				beatHall(t, base, contract.BeatRequest{AgentID: a, Brain: brain, Worktree: wt, CallerRoot: wt, Tool: "Edit"})
			}
		}()
	}
	for _, a := range agents {
		work <- a
	}
	close(work)
	wg.Wait()

	// The last beat's answer: its first partners, then how many more.
	last := beatHall(t, base, contract.BeatRequest{AgentID: agents[0], Brain: brain, Worktree: wt, CallerRoot: wt, Tool: "Edit"})
	checkNorth(t, "the beat's answer", last.North, last.CollisionsTotal, n)

	// The contract lists the first `limit` pairs by presence id and counts
	// them all, owner-wide and for the brain.
	ids := make([]string, n)
	for i, a := range agents {
		ids[i] = presence.ID(a, brain)
	}
	slices.Sort(ids)
	var want []string
	for i := 0; i < n && len(want) < limit; i++ {
		for j := i + 1; j < n && len(want) < limit; j++ {
			want = append(want, ids[i]+"~"+ids[j])
		}
	}
	for _, q := range []string{"", "?brain=" + url.QueryEscape(brain)} {
		var resp contract.PresencesResponse
		size := getSized(t, base+"/api/presences"+q, &resp, maxBody)
		t.Logf("GET /api/presences%s: %d bytes, %d presences, %d of %d collisions", q, size, len(resp.Presences), len(resp.Collisions), resp.CollisionsTotal)
		if len(resp.Presences) != n || resp.CollisionsTotal != total || len(resp.Collisions) != min(total, limit) {
			t.Fatalf("contract%s: got %d presences, %d of %d collisions, want %d, %d of %d", q, len(resp.Presences), len(resp.Collisions), resp.CollisionsTotal, n, min(total, limit), total)
		}
		got := make([]string, len(resp.Collisions))
		for i, c := range resp.Collisions {
			got[i] = c.CollisionID
		}
		if !slices.Equal(got, want) {
			t.Errorf("contract%s lists %v…, want the first pairs by presence id %v…", q, got[:3], want[:3])
		}
	}

	// The stream's view, rebuilt from snapshot and diffs, is the contract.
	w.UntilView(t, "the rebuilt view to equal the contract", func(v contract.PresencesResponse) bool {
		c := contractNow(t, base+"/api/presences")
		va, vc := rosterIDs(v)
		ca, cc := rosterIDs(c)
		return v.CollisionsTotal == c.CollisionsTotal && slices.Equal(va, ca) && slices.Equal(vc, cc)
	})

	// A new stream's snapshot is as bounded as the contract.
	snapSize, snap := firstStreamEvent(t, base+"/api/presences/stream")
	t.Logf("stream snapshot: %d bytes", snapSize)
	if snapSize > maxBody || snap.CollisionsTotal != total || len(snap.Collisions) != min(total, limit) {
		t.Errorf("stream snapshot: %d bytes, %d of %d collisions; want at most %d bytes, %d of %d", snapSize, len(snap.Collisions), snap.CollisionsTotal, maxBody, min(total, limit), total)
	}
	// An agent's own stream view counts its own collisions.
	_, own := firstStreamEvent(t, base+"/api/presences/stream?presence_id="+ids[n-1])
	if own.CollisionsTotal != n-1 || len(own.Presences) != 1 {
		t.Errorf("agent's stream snapshot: %d presences, total %d; want 1, %d", len(own.Presences), own.CollisionsTotal, n-1)
	}

	// Health: counts and a sample.
	var h contract.Health
	size := getSized(t, base+"/api/health", &h, 64<<10)
	t.Logf("GET /api/health: %d bytes", size)
	if h.Presences == nil || h.Presences.Live != n || h.Presences.CollisionCount != total ||
		len(h.Presences.Presences) != contract.HealthSample || len(h.Presences.Collisions) != contract.HealthSample {
		t.Errorf("health: got %+v, want live %d, collision_count %d and samples of %d", h.Presences, n, total, contract.HealthSample)
	}

	// North: bounded lines and the count.
	var north contract.NorthResponse
	getSized(t, base+"/api/north?presence_id="+ids[n/2], &north, 16<<10)
	checkNorth(t, "GET /api/north", north.North, north.CollisionsTotal, n)

	// The cockpit names the first and counts the rest.
	cockpit := getBody(t, base+"/api/cockpit", 16<<10)
	if !strings.Contains(cockpit, fmt.Sprintf("⚠ %d collisions", total)) || !strings.Contains(cockpit, fmt.Sprintf("+%d more", total-1)) {
		t.Errorf("cockpit: got %q, want the total and +%d more", cockpit, total-1)
	}

	// The page shows one card for the one place, its first agents, and
	// counts every other collision, listed or not.
	page := getBody(t, base+"/", 2*maxBody)
	t.Logf("GET /: %d bytes", len(page))
	if got := strings.Count(page, `data-testid="collision"`); got != 1 {
		t.Errorf("page: %d collision cards, want 1 (one place)", got)
	}
	if got := strings.Count(page, `data-testid="collision-team"`); got != views.CardTeamsShown {
		t.Errorf("page: %d agents on the card, want %d", got, views.CardTeamsShown)
	}
	if more := fmt.Sprintf("+%d more collisions not listed", total-min(total, limit)); total > limit && !strings.Contains(page, more) {
		t.Errorf("page: no %q", more)
	}
	if !strings.Contains(page, fmt.Sprintf("⚠ %d collisions", total)) {
		t.Errorf("page: the strip does not warn of all %d collisions", total)
	}

	// hall watch says the total and how many are listed.
	wr := startWatch(t, "--hall", base, "--collisions-only")
	if l := wr.line(t, "the header"); !strings.Contains(l, fmt.Sprintf("%d collisions (%d listed)", total, min(total, limit))) {
		t.Errorf("watch header: got %q", l)
	}
}

// checkNorth checks north lines for a presence with n-1 partners.
func checkNorth(t *testing.T, what string, lines []string, total, n int) {
	t.Helper()
	if total != n-1 || len(lines) != presence.NorthCap+1 {
		t.Fatalf("%s: got %d lines, total %d; want %d lines, total %d", what, len(lines), total, presence.NorthCap+1, n-1)
	}
	if want := fmt.Sprintf("collision: +%d more (%d in all)", n-1-presence.NorthCap, n-1); lines[len(lines)-1] != want {
		t.Errorf("%s: last line %q, want %q", what, lines[len(lines)-1], want)
	}
}

// getSized decodes a GET's JSON body, failing when it is larger than max
// bytes, and returns its size.
func getSized(t *testing.T, u string, out any, max int) int {
	t.Helper()
	body := getBody(t, u, max)
	if err := json.Unmarshal([]byte(body), out); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return len(body)
}

// getBody reads a GET's body, failing past max bytes or on a status other
// than 200.
func getBody(t *testing.T, u string, max int) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK || len(b) > max {
		t.Fatalf("GET %s: status %d, %d bytes (at most %d wanted)", u, resp.StatusCode, len(b), max)
	}
	schematest.CheckAnswer(t, u, resp.StatusCode, b)
	return string(b)
}

// firstStreamEvent opens a stream and returns its first event (the
// snapshot): its size on the wire and what it says.
func firstStreamEvent(t *testing.T, u string) (int, contract.PresencesResponse) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	r := bufio.NewReaderSize(resp.Body, 1<<16)
	size := 0
	var data string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream %s: %v", u, err)
		}
		size += len(line)
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data += d
		}
		if line == "\n" && data != "" {
			break
		}
	}
	var snap contract.PresencesResponse
	if err := json.Unmarshal([]byte(data), &snap); err != nil {
		t.Fatalf("stream %s: snapshot: %v", u, err)
	}
	return size, snap
}
