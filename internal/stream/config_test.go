package stream

import (
	"log/slog"
	"testing"
	"time"
)

// TestConfigDefaults: a zero or negative setting takes its default (a
// negative heartbeat would panic the ticker); a positive one is kept.
func TestConfigDefaults(t *testing.T) {
	defaults := Config{
		History: DefaultHistory, HistoryItems: DefaultHistoryItems, Buffer: DefaultBuffer,
		Heartbeat: DefaultHeartbeat, Retry: DefaultRetry, WriteTimeout: DefaultWriteTimeout,
		MinInterval: DefaultMinInterval, Events: DefaultEvents, FullRetryAfter: DefaultFullRetryAfter,
	}
	set := Config{
		History: 3, HistoryItems: 4, Buffer: 5, Heartbeat: time.Second, Retry: 2 * time.Second,
		WriteTimeout: 3 * time.Second, MinInterval: time.Millisecond, Events: 6, FullRetryAfter: 4 * time.Second,
	}
	for _, tc := range []struct {
		name   string
		in     Config
		want   Config
		maxSub int
	}{
		{"zero", Config{}, defaults, 0},
		{"negative", Config{
			History: -1, HistoryItems: -1, Buffer: -1, Heartbeat: -time.Second, Retry: -1, WriteTimeout: -1,
			MinInterval: -1, Events: -1, FullRetryAfter: -time.Second, MaxSubscribers: -1,
		}, defaults, -1},
		{"set", set, set, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Log = slog.New(slog.DiscardHandler)
			h := NewHub(&growingSource{}, tc.in)
			defer h.Close()
			got := h.cfg
			got.Log, got.MaxSubscribers = nil, 0
			if got != tc.want {
				t.Errorf("config %+v, want %+v", got, tc.want)
			}
			if h.cfg.MaxSubscribers != tc.maxSub {
				t.Errorf("MaxSubscribers %d, want %d as given", h.cfg.MaxSubscribers, tc.maxSub)
			}
		})
	}
}
