package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// probePrefix marks the agents the orchestrator writes to time a change:
// "probe-<unix nanos of the write>".
const probePrefix = "probe-"

// subscribeResult is what a subscriber process measured.
type subscribeResult struct {
	Connected int     `json:"connected"`
	Samples   int     `json:"samples"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	MaxMs     float64 `json:"max_ms"`
	Missed    int     `json:"missed"`            // probes a subscriber never saw
	Dropped   int64   `json:"dropped,omitempty"` // streams the Hall cut off for falling behind
}

// lost says what did not arrive: missed probes, and dropped streams when any.
func (r subscribeResult) lost() string {
	if r.Dropped > 0 {
		return fmt.Sprintf("%d missed, %d streams dropped", r.Missed, r.Dropped)
	}
	return fmt.Sprintf("%d missed", r.Missed)
}

// subscribe holds o.subs SSE connections, prints "ready" once every one has
// its snapshot, then records when each probe join arrives on each
// connection, until every connection saw o.probes probes or ctx ends.
func subscribe(ctx context.Context, o options) (subscribeResult, error) {
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: o.subs, DisableCompression: true}}
	var (
		ready   sync.WaitGroup
		done    sync.WaitGroup
		mu      sync.Mutex
		lats    []time.Duration
		missed  int
		connOK  atomic.Int64
		connErr atomic.Value
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := 0; i < o.subs; i++ {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			readyOnce := sync.OnceFunc(ready.Done)
			defer readyOnce()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, o.url+"/api/presences/stream", nil)
			resp, err := client.Do(req)
			if err != nil {
				connErr.Store(err)
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				connErr.Store(fmt.Errorf("stream answered %d", resp.StatusCode))
				return
			}
			connOK.Add(1)
			br := bufio.NewReaderSize(resp.Body, 8<<10)
			seen := 0
			var local []time.Duration
			for seen < o.probes {
				line, err := br.ReadSlice('\n')
				now := time.Now()
				if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
					break
				}
				if bytes.HasPrefix(line, []byte("event: snapshot")) {
					readyOnce()
				}
				for rest := line; ; {
					k := bytes.Index(rest, []byte(`"agent_id":"`+probePrefix))
					if k < 0 {
						break
					}
					rest = rest[k+len(`"agent_id":"`+probePrefix):]
					end := bytes.IndexByte(rest, '"')
					if end < 0 {
						break
					}
					if ns, err := strconv.ParseInt(string(rest[:end]), 10, 64); err == nil && bytes.Contains(line, []byte(`"joins"`)) {
						local = append(local, now.Sub(time.Unix(0, ns)))
						seen++
					}
				}
			}
			mu.Lock()
			lats = append(lats, local...)
			missed += o.probes - seen
			mu.Unlock()
		}()
	}
	ready.Wait()
	fmt.Fprintln(os.Stdout, "ready")
	finished := make(chan struct{})
	go func() { done.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
	case <-time.After(o.duration):
		cancel()
		<-finished
	}
	if connOK.Load() == 0 {
		if err, _ := connErr.Load().(error); err != nil {
			return subscribeResult{}, err
		}
	}
	res := subscribeResult{Connected: int(connOK.Load()), Samples: len(lats), Missed: missed}
	res.P50Ms, res.P99Ms, res.MaxMs = pct(lats, 0.5), pct(lats, 0.99), pct(lats, 1)
	return res, nil
}
