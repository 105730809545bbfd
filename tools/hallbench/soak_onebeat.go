package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// One-beat agents: beside the soak's agents, a stream of sessions that
// each beat once and are never heard of again (a CI job's agent, a
// one-shot hook), soakOneBeatRate a second on a brain of their own, not
// mutating, so they take no part in collisions. Each lapses at its ttl;
// the Hall must reclaim its record while running, so the presences folder,
// the resident memory and the beat rate stay flat. (Found: 88,700 of them
// left 88,816 files, 265 MB resident, and the beat rate down from 2,439/s
// to 63/s, until a restart.) They stop soakOneBeatQuiet before the other
// agents, so every one of them has lapsed and gone by the quiescent
// comparison.
const (
	soakOneBeatRate  = 50
	soakOneBeatBrain = "/soak/one-beat"
	soakOneBeatQuiet = 10 * time.Second
)

// oneBeats counts the one-beat agents' beats.
type oneBeats struct {
	beats, errors atomic.Int64
}

// soakOneBeatWorkers share the one-beat agents' rate, each beating in
// turn: a loaded Hall answers a beat in tens of milliseconds.
const soakOneBeatWorkers = 5

// run beats a new agent soakOneBeatRate times a second (as the Hall keeps
// up) until ctx ends.
func (o *oneBeats) run(ctx context.Context, url string) {
	var wg sync.WaitGroup
	for w := range soakOneBeatWorkers {
		wg.Go(func() { o.work(ctx, url, w) })
	}
	wg.Wait()
}

func (o *oneBeats) work(ctx context.Context, url string, w int) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	tick := time.NewTicker(time.Second * soakOneBeatWorkers / soakOneBeatRate)
	defer tick.Stop()
	for n := w; ; n += soakOneBeatWorkers {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		body, _ := json.Marshal(contract.BeatRequest{AgentID: fmt.Sprintf("one-beat-%d", n), Brain: soakOneBeatBrain})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/api/presences/beat", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				o.errors.Add(1)
			}
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			o.errors.Add(1)
			continue
		}
		o.beats.Add(1)
	}
}

// recordFiles counts the entries of the Hall's presences folder.
func recordFiles(root string) int {
	entries, err := os.ReadDir(filepath.Join(root, "presences"))
	if err != nil {
		return -1
	}
	return len(entries)
}

// oneBeatRates is the one-beat agents' beat rate (a second) in each window
// between two samples that lies wholly after warmup and before stop.
func oneBeatRates(ss []sample, warmup, stop time.Duration) []float64 {
	var out []float64
	for i := 1; i < len(ss); i++ {
		a, b := ss[i-1], ss[i]
		if a.at >= warmup && b.at <= stop && b.at > a.at {
			out = append(out, float64(b.oneBeats-a.oneBeats)/(b.at-a.at).Seconds())
		}
	}
	return out
}
