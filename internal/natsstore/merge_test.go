package natsstore

import (
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

func TestMessageTTL(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	rec := func(lastBeat, ttl int64) presence.Record {
		return presence.Record{LastBeatMs: lastBeat, TTLMs: ttl}
	}
	tests := []struct {
		name string
		r    presence.Record
		want time.Duration
	}{
		{"fresh beat: the ttl plus a grace second", rec(1_000_000, 120_000), 121 * time.Second},
		{"rounded up to whole seconds", rec(1_000_000, 1_500), 3 * time.Second},
		{"a held beat written late lives its remaining time", rec(996_000, 10_000), 7 * time.Second},
		{"already stale: the engine's minimum, one grace second", rec(0, 1000), time.Second},
		{"no ttl: the default", rec(1_000_000, 0), presence.DefaultTTL + time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := messageTTL(tt.r, now); got != tt.want {
				t.Errorf("messageTTL: got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://user:secret@127.0.0.1:4222,nats://127.0.0.1:4223", "nats://***@127.0.0.1:4222,nats://127.0.0.1:4223"},
		{"tok@host:1", "***@host:1"},
	}
	for _, tt := range tests {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("redact(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
