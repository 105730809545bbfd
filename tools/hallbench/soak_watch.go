package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/stream"
)

// soakSubscriber follows the stream with the real client and rebuilds the
// roster from snapshot + diffs, remembering every collision it saw open and
// close.
type soakSubscriber struct {
	mu          sync.Mutex
	view        stream.View
	opened      map[string]bool // collision ids seen opening (or open in a snapshot)
	closed      map[string]bool // collision ids seen leaving the view: closed, or unlisted by the bound
	openEvents  int
	closeEvents int
	unlisted    int // collisions that left the view still open, pushed out by the bound
	joins       int
	leaves      int
	resyncs     int // snapshots after the first: a reconnect the Hall could not resume
	disconnects int
	err         error // why Follow ended, when not by cancel
}

func newSoakSubscriber() *soakSubscriber {
	return &soakSubscriber{opened: map[string]bool{}, closed: map[string]bool{}}
}

func (s *soakSubscriber) follow(ctx context.Context, url string) {
	c := &stream.Client{
		URL: url + "/api/presences/stream", MinWait: 50 * time.Millisecond, MaxWait: time.Second,
		OnDisconnect: func(error, time.Duration) {
			s.mu.Lock()
			s.disconnects++
			s.mu.Unlock()
		},
	}
	err := c.Follow(ctx, func(ev stream.Event) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		ch := s.view.Apply(ev)
		if ch.Resync {
			s.resyncs++
		}
		for _, x := range ch.Opened {
			s.opened[x.CollisionID] = true
			s.openEvents++
		}
		for _, x := range ch.Closed {
			s.closed[x.CollisionID] = true
			s.closeEvents++
		}
		for _, x := range ch.Unlisted {
			s.closed[x.CollisionID] = true
			s.unlisted++
		}
		s.joins += len(ch.Joins)
		s.leaves += len(ch.Leaves)
		return nil
	})
	if err != nil {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
	}
}

// state returns the view's cursor and roster.
func (s *soakSubscriber) state() (string, contract.PresencesResponse) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.view.Cursor, s.view.Response()
}

// soakPollers read the contract as UI clients do, conditionally, and
// remember every collision it showed.
type soakPollers struct {
	mu         sync.Mutex
	collisions map[string]bool
	cut        atomic.Int64 // reads whose list the bound cut (collisions_total above the listed)
	polls      atomic.Int64
	notMod     atomic.Int64
	errs       atomic.Int64
	lastErr    atomic.Value
}

func (p *soakPollers) run(ctx context.Context, url string, client *http.Client) {
	var etag string
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/presences", nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				p.errs.Add(1)
				p.lastErr.Store(err.Error())
			}
			continue
		}
		p.polls.Add(1)
		switch resp.StatusCode {
		case http.StatusNotModified:
			p.notMod.Add(1)
		case http.StatusOK:
			var r contract.PresencesResponse
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Error != "" {
				p.errs.Add(1)
				p.lastErr.Store(fmt.Sprintf("decode: %v, error %q", err, r.Error))
			} else if err := consistent(r); err != nil {
				p.errs.Add(1)
				p.lastErr.Store(err.Error())
			}
			p.mu.Lock()
			for _, c := range r.Collisions {
				p.collisions[c.CollisionID] = true
			}
			p.mu.Unlock()
			if r.CollisionsTotal > len(r.Collisions) {
				p.cut.Add(1)
			}
			etag = resp.Header.Get("ETag")
		default:
			p.errs.Add(1)
			p.lastErr.Store("status " + resp.Status)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		sleepCtx(ctx, 200*time.Millisecond)
	}
}

// consistent checks the contract against itself: every collision's sides
// are presences it lists, on the collision's brain; no brain lists more
// than the bound; the total counts at least what is listed.
func consistent(r contract.PresencesResponse) error {
	brainOf := map[string]string{}
	for _, p := range r.Presences {
		brainOf[p.PresenceID] = p.Brain
	}
	perBrain := map[string]int{}
	for _, c := range r.Collisions {
		if brainOf[c.A.PresenceID] != c.Brain || brainOf[c.B.PresenceID] != c.Brain {
			return fmt.Errorf("collision %s names a side the contract does not list", c.CollisionID)
		}
		if perBrain[c.Brain]++; perBrain[c.Brain] > soakMaxCollisions {
			return fmt.Errorf("brain %s lists more than %d collisions", c.Brain, soakMaxCollisions)
		}
	}
	if r.CollisionsTotal < len(r.Collisions) {
		return fmt.Errorf("collisions_total %d is below the %d listed", r.CollisionsTotal, len(r.Collisions))
	}
	return nil
}

// sample is one look at the Hall process.
type sample struct {
	at         time.Duration
	rssKiB     int64
	goroutines int
	load       bool  // taken while the agents ran (or right as they stopped)
	files      int   // entries in the presences folder
	oneBeats   int64 // the one-beat agents' beats so far
}

// goroutines reads the Hall's goroutine count from its profiler: the first
// line of /debug/pprof/goroutine?debug=1 is "goroutine profile: total N".
func goroutines(pprofAddr string) (int, error) {
	resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil {
		return 0, fmt.Errorf("goroutine profile: %w", err)
	}
	n, ok := strings.CutPrefix(strings.TrimSpace(line), "goroutine profile: total ")
	if !ok {
		return 0, fmt.Errorf("goroutine profile starts %q", line)
	}
	return strconv.Atoi(n)
}

// flat checks that the last third of the samples after warm-up peaks no
// higher than the first third's peak by more than 20 % plus slack: no
// growth trend.
func flat(ss []sample, warmup time.Duration, value func(sample) int64, slack int64) (bool, string) {
	var xs []int64
	for _, s := range ss {
		if s.load && s.at > warmup {
			xs = append(xs, value(s))
		}
	}
	if len(xs) < 2 {
		return false, fmt.Sprintf("only %d samples after warm-up", len(xs))
	}
	k := max(1, len(xs)/3)
	first, last := slices.Max(xs[:k]), slices.Max(xs[len(xs)-k:])
	limit := first + first/5 + slack
	return last <= limit, fmt.Sprintf("first third peak %d, last third peak %d, limit %d", first, last, limit)
}

// settle waits until every subscriber's view is at the contract's cursor,
// re-reading the contract when the roster moved on meanwhile, and returns
// the contract and the views at that cursor.
func settle(ctx context.Context, url string, subs []*soakSubscriber, within time.Duration) (contract.PresencesResponse, []contract.PresencesResponse, error) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/api/presences")
		if err != nil {
			return contract.PresencesResponse{}, nil, err
		}
		var want contract.PresencesResponse
		err = json.NewDecoder(resp.Body).Decode(&want)
		resp.Body.Close()
		if err != nil {
			return want, nil, err
		}
		views := make([]contract.PresencesResponse, len(subs))
		moved := false
	each:
		for i, s := range subs {
			for {
				cur, v := s.state()
				if cur == want.Cursor {
					views[i] = v
					continue each
				}
				if cursorAfter(cur, want.Cursor) || time.Now().After(deadline) {
					moved = true
					break each
				}
				if !sleepCtx(ctx, 10*time.Millisecond) {
					return want, nil, ctx.Err()
				}
			}
		}
		if !moved {
			return want, views, nil
		}
	}
	return contract.PresencesResponse{}, nil, errors.New("the roster never held still long enough to compare")
}

// cursorAfter reports whether event id a comes after b (both of one run).
func cursorAfter(a, b string) bool {
	x, err1 := strconv.ParseUint(a, 10, 64)
	y, err2 := strconv.ParseUint(b, 10, 64)
	return err1 == nil && err2 == nil && x > y
}

// rosterKey is what the soak compares between a view and the contract:
// presence ids, collision ids, sorted, and the collisions' total.
func rosterKey(r contract.PresencesResponse) string {
	var ps, cs []string
	for _, p := range r.Presences {
		ps = append(ps, p.PresenceID)
	}
	for _, c := range r.Collisions {
		cs = append(cs, c.CollisionID)
	}
	slices.Sort(ps)
	slices.Sort(cs)
	return strings.Join(ps, ",") + " | " + strings.Join(cs, ",") + " | " + strconv.Itoa(r.CollisionsTotal)
}

// sameContent compares a view with the contract field by field, the clock
// and cursor aside.
func sameContent(a, b contract.PresencesResponse) bool {
	a.ServedAtMs, b.ServedAtMs, a.Cursor, b.Cursor = 0, 0, "", ""
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
