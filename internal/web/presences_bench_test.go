package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/stream"
)

// BenchmarkPresencesIndex serves GET /api/presences owner-wide over 1,000
// presences of 50 brains (presencetest.BenchRoster, with its collisions):
// "200" at one cursor (the body encoded once, then copied with a fresh
// clock), "304" with the cursor's ETag, and "encode", the mapping and
// encoding a new cursor costs once (hall.View.Response, then the cached
// body): go test -run '^$' -bench PresencesIndex -benchmem ./internal/web/
func BenchmarkPresencesIndex(b *testing.B) {
	store := dirstoretest.Open(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := time.Now().UnixMilli()
	for _, r := range presencetest.BenchRoster(1000) {
		r.FirstSeenMs, r.LastBeatMs, r.TTLMs = now, now, 3_600_000
		if r.Mutation.ObservedAtMs != 0 {
			r.Mutation.ObservedAtMs = now
		}
		if err := store.Upsert(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	log := slog.New(slog.DiscardHandler)
	svc := presence.NewService(store, presence.Config{Logger: log, TTL: time.Hour})
	hub := stream.NewHub(svc, stream.Config{Log: log})
	hub.Start(ctx)
	defer hub.Close()
	h := &Handler{App: &hall.Hall{Service: svc, Roster: hub, History: hub}, History: hub, Log: log}
	serve := func(etag string, want int) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/api/presences", nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		w := httptest.NewRecorder()
		if err := h.HandlePresencesIndex(w, req); err != nil {
			b.Fatal(err)
		}
		if w.Code != want {
			b.Fatalf("status %d, want %d", w.Code, want)
		}
		return w
	}
	first := serve("", http.StatusOK)
	etag := first.Header().Get("ETag")
	b.Logf("%d bytes, ETag %s", first.Body.Len(), etag)
	b.Run("200", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serve("", http.StatusOK)
		}
	})
	b.Run("304", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serve(etag, http.StatusNotModified)
		}
	})
	b.Run("encode", func(b *testing.B) {
		v, err := h.App.View(ctx, "")
		if err != nil || v.Err != nil {
			b.Fatal(err, v.Err)
		}
		b.ReportAllocs()
		for b.Loop() {
			encodeRosterBody(v.Response(), v.Cursor)
		}
	})
}
