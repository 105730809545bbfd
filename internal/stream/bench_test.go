package stream_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/stream"
)

// BenchmarkChangeToSubscriber measures the time from an outside writer's
// file write (an m1nd runtime updating its record) to each subscriber
// reading the diff, with 1,000 presences in the registry and 1,000 open
// streams. Each iteration is one write; its latency is counted once per
// subscriber. Reported: p50 and p99 over all (write, subscriber) pairs.
//
//	go test -run '^$' -bench ChangeToSubscriber -benchtime 200x ./internal/stream/
func BenchmarkChangeToSubscriber(b *testing.B) {
	const presences, subscribers = 1000, 1000
	th := newTestHall(b, stream.Config{})
	now := time.Now().UnixMilli()
	recs := make([]presence.Record, presences)
	for i := range recs {
		agent := fmt.Sprintf("agent-%04d", i)
		brain := fmt.Sprintf("/srv/brain-%d", i/100)
		wt := i
		if i%100 == 99 { // one pair a brain shares a worktree: 10 collisions
			wt = i - 1
		}
		recs[i] = presencetest.Rec(agent, brain, presencetest.Worktree(fmt.Sprintf("%s/wt-%d", brain, wt)),
			presencetest.WS("src/", "go.mod"), presencetest.Intent("mutate"), presencetest.At(now), presencetest.TTL(3_600_000))
		if err := th.store.Upsert(context.Background(), recs[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("setup: %d records written in %s", presences, time.Since(time.UnixMilli(now)))
	eventually.True(b, time.Minute, "the hall to see every presence", func() bool {
		snap, err := th.hub.Snapshot(context.Background())
		return err == nil && len(snap.Live) == presences
	})

	b.Logf("setup: hall sees them at %s", time.Since(time.UnixMilli(now)))
	// Subscribers: raw readers that note when the awaited marker arrives.
	// Each subscriber notes its arrival in its own slot; the last one to
	// arrive wakes the writer, so measuring costs one wake-up a write, not
	// a thousand.
	var marker atomic.Pointer[[]byte]
	arrivals := make([]atomic.Int64, subscribers)
	var arrived atomic.Int64
	all := make(chan struct{}, 1)
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: subscribers}
	hc := &http.Client{Transport: tr}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	ready := make(chan struct{}, subscribers)
	for i := range subscribers {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, th.srv.URL, nil)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer resp.Body.Close()
			br := bufio.NewReaderSize(resp.Body, 16<<10)
			first, midLine := true, false
			for {
				line, err := br.ReadSlice('\n')
				if err != nil && err != bufio.ErrBufferFull {
					return
				}
				// A long line (the snapshot) comes in pieces: only the
				// first piece starts a line.
				startsLine := !midLine
				midLine = err == bufio.ErrBufferFull
				if !startsLine || !bytes.HasPrefix(line, []byte("data: ")) {
					continue
				}
				if first {
					first = false
					ready <- struct{}{}
					continue
				}
				if m := marker.Load(); m != nil && bytes.Contains(line, *m) {
					arrivals[i].Store(time.Now().UnixNano())
					if arrived.Add(1) == subscribers {
						all <- struct{}{}
					}
				}
			}
		}()
	}
	for i := 0; i < subscribers; i++ {
		<-ready
	}
	b.Logf("setup: %d subscribers connected at %s", subscribers, time.Since(time.UnixMilli(now)))
	defer func() {
		cancel()
		wg.Wait()
		tr.CloseIdleConnections()
	}()

	lat := make([]time.Duration, 0, b.N*subscribers)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		r := recs[n%presences]
		r.Theme = fmt.Sprintf("bench-%d", n)
		r.LastBeatMs = time.Now().UnixMilli()
		m := []byte(`"theme":"` + r.Theme + `"`)
		arrived.Store(0)
		marker.Store(&m)
		start := time.Now()
		if err := th.store.Upsert(context.Background(), r); err != nil {
			b.Fatal(err)
		}
		select {
		case <-all:
		case <-time.After(time.Minute):
			b.Fatalf("write %d: %d of %d subscribers heard of it", n, arrived.Load(), subscribers)
		}
		for i := range arrivals {
			lat = append(lat, time.Duration(arrivals[i].Load()-start.UnixNano()))
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 {
		return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	if st := th.hub.Stats(); st.Dropped > 0 {
		b.Errorf("%d subscribers dropped during the benchmark", st.Dropped)
	}
}
