package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// crowdBrain is the one brain, and worktree, of the crowded scenario.
const crowdBrain = "/bench/crowd"

// crowdPace is how often each agent of the crowded scenario beats: once a
// second, busier than the soak's agents (every 1 to 2 s).
const crowdPace = time.Second

// crowded: n agents beating in one worktree, all mutating, so n·(n-1)/2
// pairs collide. The contract lists at most the Hall's --max-collisions
// (1,000) of them and counts the rest; its size, a beat's latency and the
// Hall's memory must grow with the roster, not with its pairs. The agents
// join (a first paced run, not measured: each agent's first beat is its
// join, written at once), then beat at a pace (each every crowdPace: the
// latency of a beat in a steady crowd), then as fast as they are answered
// (the most beats a second the Hall takes from such a crowd).
func (b *bench) crowded(ctx context.Context) error {
	counts := []int{300, 1000}
	if b.o.quick {
		counts = []int{300}
	}
	for _, n := range counts {
		h, err := b.startHall(ctx, b.newRoot(fmt.Sprintf("crowd-%d", n)))
		if err != nil {
			return err
		}
		var join, load, flat loadResult
		args := []string{"-role", "beat", "-crowd", "-url", h.url, "-agents", strconv.Itoa(n)}
		err = b.load(ctx, &join, append(args, "-duration", (3*crowdPace).String(), "-every", crowdPace.String())...)
		args = append(args, "-duration", b.o.duration.String())
		if err == nil {
			err = b.load(ctx, &load, append(args, "-every", crowdPace.String())...)
		}
		if err == nil {
			err = b.load(ctx, &flat, args...)
		}
		if err != nil {
			h.stop()
			return err
		}
		size, resp, err := contractSize(h.url)
		var hl contract.Health
		if err == nil {
			hl, err = health(h.url)
		}
		rss, rerr := rssKiB(h.cmd.Process.Pid)
		h.stop()
		if err != nil {
			return err
		}
		if rerr != nil {
			return rerr
		}
		pairs := n * (n - 1) / 2
		if len(resp.Presences) != n || resp.CollisionsTotal != pairs {
			return fmt.Errorf("crowd of %d: the contract holds %d presences and counts %d collisions, want %d and %d", n, len(resp.Presences), resp.CollisionsTotal, n, pairs)
		}
		figure := fmt.Sprintf("crowded worktree, %d mutating agents (%d collisions)", n, pairs)
		sizeOK, sizeGoal := (*bool)(nil), ""
		latOK, latGoal := (*bool)(nil), ""
		if n == 300 {
			sizeOK, sizeGoal = pass(size < 3<<20), "< 3 MB"
			latOK, latGoal = pass(load.P99Ms < 50 && load.Errors == 0), "p99 < 50 ms"
		}
		b.add(figure+": GET /api/presences", fmt.Sprintf("%.2f MB (%d of %d collisions listed)", float64(size)/(1<<20), len(resp.Collisions), resp.CollisionsTotal), sizeGoal, sizeOK)
		b.add(figure+fmt.Sprintf(": joining, each beating every %s, p50 / p99 (not held to the goal)", crowdPace), fmt.Sprintf("%.2f / %.2f ms (%.0f beats/s, %d errors)", join.P50Ms, join.P99Ms, join.RPS, join.Errors), "", nil)
		b.add(figure+fmt.Sprintf(": joined, each beating every %s, p50 / p99", crowdPace), fmt.Sprintf("%.2f / %.2f ms (%.0f beats/s, %d errors)", load.P50Ms, load.P99Ms, load.RPS, load.Errors), latGoal, latOK)
		b.add(figure+": beats/s, each agent beating as soon as answered (p50 / p99)", fmt.Sprintf("%.0f/s (%.2f / %.2f ms), %d errors", flat.RPS, flat.P50Ms, flat.P99Ms, flat.Errors), "", nil)
		rssOK, rssGoal := (*bool)(nil), ""
		if n == 1000 {
			rssOK, rssGoal = pass(rss <= 150<<10), "≤ 150 MB"
		}
		b.add(figure+": resident memory after the load", fmt.Sprintf("%.1f MB (health: %d presences, %d collisions shown of %d)",
			float64(rss)/1024, len(hl.Presences.Presences), len(hl.Presences.Collisions), hl.Presences.CollisionCount), rssGoal, rssOK)
	}
	return nil
}

// contractSize reads GET /api/presences and returns its size and what it
// said.
func contractSize(url string) (int, contract.PresencesResponse, error) {
	var resp contract.PresencesResponse
	res, err := http.Get(url + "/api/presences")
	if err != nil {
		return 0, resp, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, resp, err
	}
	if err := json.Unmarshal(body, &resp); err != nil {
		return 0, resp, fmt.Errorf("GET /api/presences: %w", err)
	}
	return len(body), resp, nil
}
