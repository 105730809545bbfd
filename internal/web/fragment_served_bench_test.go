package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
	"github.com/hall-dev/hall/internal/stream"
)

// BenchmarkFragmentServed serves /fragments/hall?roster=all at one cursor
// (the body cached) to a page that has every region but the roster and
// every row but one, as after a beat: the roster region with one row
// whole and the others as their opening tag. It measures the serving, not
// the rendering (BenchmarkHallRegions): go test -run '^$' -bench
// FragmentServed -benchmem ./internal/web/
func BenchmarkFragmentServed(b *testing.B) {
	store := dirstoretest.Open(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := time.Now().UnixMilli()
	const n = 1000
	for i := range n {
		brain := fmt.Sprintf("/bench/brain-%02d", i%50)
		r := presencetest.Rec(fmt.Sprintf("agent-%05d", i), brain, presencetest.Worktree(fmt.Sprintf("%s/wt-%04d", brain, i/2/50)),
			presencetest.Theme(fmt.Sprintf("task %d", i)), presencetest.At(now), presencetest.TTL(3_600_000))
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
	serve := func(have string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/fragments/hall?roster=all", nil)
		req.SetPathValue("name", "hall")
		if have != "" {
			req.Header.Set("X-Hall-Have", have)
		}
		w := httptest.NewRecorder()
		if err := h.HandleFragment(w, req); err != nil {
			b.Fatal(err)
		}
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
		return w
	}
	doc, err := goquery.NewDocumentFromReader(serve("").Body)
	if err != nil {
		b.Fatal(err)
	}
	var have []string
	doc.Find("body > [data-region]").Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("data-region", "") != "roster" {
			have = append(have, s.AttrOr("data-hash", ""))
		}
	})
	rows := doc.Find("tr[data-h]")
	rows.Each(func(i int, s *goquery.Selection) {
		if i > 0 {
			have = append(have, s.AttrOr("data-h", ""))
		}
	})
	if rows.Length() != n {
		b.Fatalf("%d rows, want %d", rows.Length(), n)
	}
	header := strings.Join(have, " ")
	if got := strings.Count(serve(header).Body.String(), "<td"); got != 11 {
		b.Fatalf("%d cells sent, want one row's 11", got)
	}
	b.ResetTimer()
	for b.Loop() {
		serve(header)
	}
}
