package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"
)

// loadResult is what a load generator measured.
type loadResult struct {
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	Status   [6]int  `json:"status"` // count by first digit
	Seconds  float64 `json:"seconds"`
	RPS      float64 `json:"rps"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
}

func newClient(conns int) *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        conns * 2,
			MaxIdleConnsPerHost: conns * 2,
			MaxConnsPerHost:     conns * 2,
			DisableCompression:  true,
		},
	}
}

// drive runs workers concurrent loops of one request each until the
// duration passes, and summarizes latencies and rate. With a pace, each
// worker sends one request a pace (its first at a random offset), as an
// agent's hooks do, rather than one as soon as the last is answered; the
// wait is not part of a request's latency.
func drive(ctx context.Context, workers int, d, pace time.Duration, one func(ctx context.Context, worker, i int) (int, error)) (loadResult, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var (
		mu   sync.Mutex
		res  loadResult
		lats []time.Duration
		wg   sync.WaitGroup
	)
	start := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			var st [6]int
			var n, errs int64
			next := start
			if pace > 0 {
				next = start.Add(time.Duration(rand.Int64N(int64(pace))))
			}
			for i := 0; ctx.Err() == nil; i++ {
				if pace > 0 {
					if wait := time.Until(next); wait > 0 && !sleepCtx(ctx, wait) {
						break
					}
					next = next.Add(pace)
				}
				t0 := time.Now()
				code, err := one(ctx, w, i)
				if ctx.Err() != nil {
					break
				}
				local = append(local, time.Since(t0))
				n++
				if err != nil {
					errs++
					continue
				}
				st[code/100]++
			}
			mu.Lock()
			lats = append(lats, local...)
			res.Requests += n
			res.Errors += errs
			for i := range st {
				res.Status[i] += st[i]
			}
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	res.RPS = float64(res.Requests) / res.Seconds
	res.P50Ms, res.P99Ms = pct(lats, 0.50), pct(lats, 0.99)
	return res, nil
}

// pct is the q-quantile of the durations in milliseconds.
func pct(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000
}

// loadBeats is 200 agents beating as hooks do: mostly the same signal
// (throttled), now and then a new theme (a forced write). With -crowd every
// agent mutates in one worktree of one brain: n·(n-1)/2 collisions.
func loadBeats(ctx context.Context, o options) (loadResult, error) {
	client := newClient(o.agents)
	url := o.url + "/api/presences/beat"
	bodies := make([][]byte, o.agents)
	for a := range bodies {
		beat := map[string]any{
			"agent_id": fmt.Sprintf("bench-%03d", a), "brain": fmt.Sprintf("/bench/brain-%02d", a%50),
			"worktree": fmt.Sprintf("/bench/brain-%02d/wt-%03d", a%50, a), "tool": "Read", "theme": "steady",
		}
		if o.crowd {
			beat["brain"], beat["worktree"], beat["tool"] = crowdBrain, crowdBrain, "Edit"
		}
		bodies[a], _ = json.Marshal(beat)
	}
	return drive(ctx, o.agents, o.duration, o.every, func(ctx context.Context, w, i int) (int, error) {
		// The theme moves on every 50 beats: a new declaration, one forced
		// write; the beats between repeat it and are throttled.
		body := bytes.Replace(bodies[w], []byte(`"steady"`), []byte(fmt.Sprintf(`"phase %d"`, i/50)), 1)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return do(client, req)
	})
}

// loadGets reads one path from conns connections, conditionally when an
// ETag is given.
func loadGets(ctx context.Context, o options) (loadResult, error) {
	client := newClient(o.conns)
	var body []byte
	if o.body != "" {
		b, err := os.ReadFile(o.body)
		if err != nil {
			return loadResult{}, fmt.Errorf("-body: %w", err)
		}
		body = b
	}
	return drive(ctx, o.conns, o.duration, 0, func(ctx context.Context, w, i int) (int, error) {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, _ := http.NewRequestWithContext(ctx, o.method, o.url+o.path, rd)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if o.etag != "" {
			req.Header.Set("If-None-Match", o.etag)
		}
		return do(client, req)
	})
}

func do(client *http.Client, req *http.Request) (int, error) {
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}
