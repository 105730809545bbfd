package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
)

// A frozen NATS, beside the soak: a second Hall on a NATS server reached
// through a loopback proxy, beaten by a few agents and its health polled,
// while the proxy stops forwarding for soakFreeze in the middle of the run
// (what a client sees of a server under SIGSTOP: the connection open,
// nothing answered). The Hall must take it for an outage: beats answered
// within their deadline (stored false), store_unreachable on health within
// the grace a dead server gets, and the roster back once the server
// answers. (Found: every beat took 10–11 s, and health said nothing for
// 70 s.)
const (
	soakFreeze       = 15 * time.Second
	soakFrozenAgents = 3
	// soakFrozenBeatMax is the longest a beat may take while NATS is
	// frozen: one request's deadline (1 s), the Hall's own work, and room
	// for a starved machine (2.55 s measured at load 25 on 2 cores); a
	// beat took 10-11 s before.
	soakFrozenBeatMax = 4 * time.Second
	// soakFrozenShown is how soon health must say store_unreachable:
	// the deadline, or the client's stale-connection pings (~3 s), and
	// the 5 s grace a dead server gets.
	soakFrozenShown = 10 * time.Second
)

// frozenNATS is the second Hall and what its agents and poller saw.
type frozenNATS struct {
	ns    *natsserver.Server
	proxy *natstest.Proxy
	hall  *proc

	mu                       sync.Mutex
	frozenAt, thawedAt       time.Time
	shownAt, backAt          time.Time     // health's first store_unreachable after the freeze; its first clean answer after the thaw
	slowest                  time.Duration // the longest beat while frozen
	beats, errs, storedAfter int
}

// startFrozenNATS starts the server, the proxy and the Hall on them.
func (b *bench) startFrozenNATS(ctx context.Context) (*frozenNATS, error) {
	ns, err := b.startNATS("nats-frozen")
	if err != nil {
		return nil, err
	}
	proxy, err := natstest.StartProxy(ns.Addr().(*net.TCPAddr).String())
	if err != nil {
		ns.Shutdown()
		return nil, err
	}
	f := &frozenNATS{ns: ns, proxy: proxy}
	if f.hall, err = b.startHall(ctx, b.newRoot("soak-nats"), "--store="+proxy.URL(), "--ttl", soakTTL.String()); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

func (f *frozenNATS) close() {
	if f.hall != nil {
		f.hall.stop()
	}
	f.proxy.Close()
	f.ns.Shutdown()
}

// run beats and polls until ctx ends, freezing the server from freezeAt
// for soakFreeze.
func (f *frozenNATS) run(ctx context.Context, freezeAt time.Duration) {
	var wg sync.WaitGroup
	for i := range soakFrozenAgents {
		wg.Go(func() { f.agent(ctx, i) })
	}
	wg.Go(func() { f.poll(ctx) })
	if sleepCtx(ctx, freezeAt) {
		f.mu.Lock()
		f.frozenAt = time.Now()
		f.mu.Unlock()
		f.proxy.Pause()
		sleepCtx(ctx, soakFreeze)
		f.proxy.Resume()
		f.mu.Lock()
		f.thawedAt = time.Now()
		f.mu.Unlock()
	}
	wg.Wait()
}

func (f *frozenNATS) agent(ctx context.Context, i int) {
	client := &http.Client{Timeout: 30 * time.Second}
	body, _ := json.Marshal(contract.BeatRequest{AgentID: fmt.Sprintf("frozen-%d", i), Brain: "/soak/nats"})
	for sleepCtx(ctx, 250*time.Millisecond) {
		start := time.Now()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.hall.url+"/api/presences/beat", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		took := time.Since(start)
		var out contract.BeatResponse
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
		}
		f.mu.Lock()
		switch {
		case ctx.Err() != nil:
		case err != nil:
			f.errs++
		default:
			f.beats++
			frozen := !f.frozenAt.IsZero() && f.thawedAt.IsZero()
			if frozen && took > f.slowest {
				f.slowest = took
			}
			if !f.thawedAt.IsZero() && out.Stored {
				f.storedAfter++
			}
		}
		f.mu.Unlock()
	}
}

func (f *frozenNATS) poll(ctx context.Context) {
	for sleepCtx(ctx, 250*time.Millisecond) {
		h, err := health(f.hall.url)
		if err != nil {
			continue
		}
		now := time.Now()
		f.mu.Lock()
		switch {
		case f.frozenAt.IsZero():
		case f.thawedAt.IsZero():
			if h.Error == contract.StoreUnreachable && f.shownAt.IsZero() {
				f.shownAt = now
			}
		case h.Error == "" && f.backAt.IsZero():
			f.backAt = now
		}
		f.mu.Unlock()
	}
}

// checks are the verdicts of the frozen run.
func (f *frozenNATS) checks() []check {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.thawedAt.IsZero() {
		return []check{{"a frozen NATS is an outage", "the run ended before the freeze did", false}}
	}
	since := func(t time.Time, from time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.Sub(from).Round(100 * time.Millisecond).String()
	}
	shown := !f.shownAt.IsZero() && f.shownAt.Sub(f.frozenAt) <= soakFrozenShown
	return []check{
		{"a frozen NATS: beats answered within their deadline", fmt.Sprintf("frozen %s: slowest beat %s (at most %s); %d beats, %d failed", soakFreeze, f.slowest.Round(10*time.Millisecond), soakFrozenBeatMax, f.beats, f.errs),
			f.slowest <= soakFrozenBeatMax && f.errs == 0},
		{"… store_unreachable on health within the grace", fmt.Sprintf("%s after the freeze (at most %s)", since(f.shownAt, f.frozenAt), soakFrozenShown), shown},
		{"… and the roster back once NATS answers", fmt.Sprintf("health clean %s after the thaw; %d beats stored since", since(f.backAt, f.thawedAt), f.storedAfter),
			!f.backAt.IsZero() && f.storedAfter > 0},
	}
}
