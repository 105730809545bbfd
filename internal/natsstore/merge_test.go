package natsstore

import (
	"reflect"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/presence"
)

func TestMerge(t *testing.T) {
	base := presence.Record{
		Schema: presence.Schema, PresenceID: presence.ID("a", "/b"), AgentID: "a", Brain: "/b",
		Theme: "old theme", WorkingSet: []string{"x"}, Mutation: presence.Mutation{DeclaredIntent: "old"},
		FirstSeenMs: 1000, LastBeatMs: 5000, QueryCount: 10, TTLMs: 120000,
	}
	with := func(f func(r *presence.Record)) presence.Record {
		r := base.Clone()
		f(&r)
		return r
	}
	tests := []struct {
		name    string
		cur, in presence.Record
		want    presence.Record
	}{
		{
			name: "a newer incoming state wins its declarations",
			cur:  base,
			in: with(func(r *presence.Record) {
				r.LastBeatMs, r.QueryCount, r.Theme, r.WorkingSet = 6000, 11, "new theme", nil
			}),
			want: with(func(r *presence.Record) {
				r.LastBeatMs, r.QueryCount, r.Theme, r.WorkingSet = 6000, 11, "new theme", nil
			}),
		},
		{
			name: "an older incoming state keeps the stored declarations and beat",
			cur:  with(func(r *presence.Record) { r.LastBeatMs, r.Theme = 7000, "stored, newer" }),
			in:   with(func(r *presence.Record) { r.LastBeatMs, r.Theme = 6000, "incoming, older" }),
			want: with(func(r *presence.Record) { r.LastBeatMs, r.Theme = 7000, "stored, newer" }),
		},
		{
			name: "counts take the max, never the sum",
			cur:  with(func(r *presence.Record) { r.LastBeatMs, r.QueryCount = 7000, 12 }),
			in:   with(func(r *presence.Record) { r.LastBeatMs, r.QueryCount = 6000, 15 }),
			want: with(func(r *presence.Record) { r.LastBeatMs, r.QueryCount = 7000, 15 }),
		},
		{
			name: "an observed mutation is kept when the newer state has none",
			cur:  with(func(r *presence.Record) { r.Mutation.ObservedAtMs = 4000 }),
			in:   with(func(r *presence.Record) { r.LastBeatMs = 6000 }),
			want: with(func(r *presence.Record) { r.LastBeatMs, r.Mutation.ObservedAtMs = 6000, 4000 }),
		},
		{
			name: "the newest observation wins",
			cur:  with(func(r *presence.Record) { r.LastBeatMs, r.Mutation.ObservedAtMs = 7000, 6900 }),
			in:   with(func(r *presence.Record) { r.LastBeatMs, r.Mutation.ObservedAtMs = 6000, 5900 }),
			want: with(func(r *presence.Record) { r.LastBeatMs, r.Mutation.ObservedAtMs = 7000, 6900 }),
		},
		{
			name: "first seen is the earliest known, zero meaning unknown",
			cur:  with(func(r *presence.Record) { r.FirstSeenMs = 0 }),
			in:   with(func(r *presence.Record) { r.LastBeatMs, r.FirstSeenMs = 6000, 900 }),
			want: with(func(r *presence.Record) { r.LastBeatMs, r.FirstSeenMs = 6000, 900 }),
		},
		{
			name: "touched files of both writers are kept, each at its latest time",
			cur: with(func(r *presence.Record) {
				r.LastBeatMs, r.Touched = 7000, []presence.Touch{{Path: "/b/x.go", AtMs: 6900}, {Path: "/b/y.go", AtMs: 4000}}
			}),
			in: with(func(r *presence.Record) {
				r.LastBeatMs, r.Touched = 6000, []presence.Touch{{Path: "/b/y.go", AtMs: 5900}, {Path: "/b/z.go", AtMs: 5000}}
			}),
			want: with(func(r *presence.Record) {
				r.LastBeatMs = 7000
				r.Touched = []presence.Touch{{Path: "/b/x.go", AtMs: 6900}, {Path: "/b/y.go", AtMs: 5900}, {Path: "/b/z.go", AtMs: 5000}}
			}),
		},
		{
			name: "on a tie the incoming state wins, as a plain write would",
			cur:  with(func(r *presence.Record) { r.Theme = "stored" }),
			in:   with(func(r *presence.Record) { r.Theme = "incoming" }),
			want: with(func(r *presence.Record) { r.Theme = "incoming" }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := merge(tt.cur, tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("merge:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

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
