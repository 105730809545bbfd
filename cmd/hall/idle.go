package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/hall-dev/hall/internal/safefile"
)

// A Hall a client started (--autostarted) stops by itself once nobody
// needs it: for --idle-stop it has had no live presence, no stream
// subscriber (the page holds one while open) and no request at all (the
// page's polling, a hook, an MCP call). Close then flushes every held
// beat, so the store the next Hall opens is the one this one left.

// Idle is closed once the Hall has been idle for Config.IdleStop; never
// when IdleStop is 0.
func (m *Main) Idle() <-chan struct{} {
	if m.idle == nil {
		return nil
	}
	return m.idle
}

// watchIdle wraps the Hall's handler to note each request's time, and
// starts the loop that closes m.idle.
func (m *Main) watchIdle(ctx context.Context, next http.Handler) http.Handler {
	m.idle = make(chan struct{})
	m.lastRequest.Store(time.Now().UnixNano())
	go m.idleLoop(ctx)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.lastRequest.Store(time.Now().UnixNano())
		next.ServeHTTP(w, r)
	})
}

// idleLoop looks a few times per period: a live presence or an open
// stream restarts the count, as a request does.
func (m *Main) idleLoop(ctx context.Context) {
	period := m.Config.IdleStop
	tick := time.NewTicker(min(max(period/8, 10*time.Millisecond), 30*time.Second))
	defer tick.Stop()
	busySince := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := time.Now()
		if m.busy(ctx) {
			busySince = now
		}
		if last := time.Unix(0, m.lastRequest.Load()); last.After(busySince) {
			busySince = last
		}
		if now.Sub(busySince) >= period {
			close(m.idle)
			return
		}
	}
}

// busy reports a live presence or an open stream. A roster that cannot be
// read counts as busy: the Hall stops for being unneeded, never for a
// fault.
func (m *Main) busy(ctx context.Context) bool {
	if m.Hub.Stats().Subscribers > 0 {
		return true
	}
	snap, err := m.Hub.Snapshot(ctx)
	return err != nil || len(snap.Live) > 0
}

// serveLogName is an autostarted Hall's log, in its registry root.
const serveLogName = "hall.log"

// maxServeLog is the size past which the log is moved aside to
// hall.log.1 (one kept) when the next Hall starts.
const maxServeLog = 8 << 20

// openServeLog opens <root>/hall.log for appending, making the root if
// need be, and moves the last one aside first when it has grown past
// maxServeLog.
func openServeLog(root string) (*os.File, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("registry root for the log: %w", err)
	}
	p := filepath.Join(root, serveLogName)
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() > maxServeLog {
		_ = os.Rename(p, p+".1")
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE|safefile.ONoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the log: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close() // a link opened itself (Windows), not what it names
		return nil, fmt.Errorf("open the log %s: %w", p, safefile.ErrNotRegular)
	}
	return f, nil
}
