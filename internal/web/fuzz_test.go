package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
)

// FuzzBeatBody posts arbitrary bodies to the beat handler: it never answers
// 5xx, a 4xx always carries {error, detail} and writes nothing, and a 200
// names a presence whose file decodes.
func FuzzBeatBody(f *testing.F) {
	for _, seed := range []string{
		`{"agent_id":"claude-7","brain":"/srv/shop","worktree":"/srv/shop-wt2","working_set":["src/auth","go.mod"],"tool":"Edit"}`,
		`{"agent_id":"a","brain":"/b","declared_intent":"x","working_set":[]}`,
		`{"agent_id":"a","brain":"rel"}`,
		`{"agent_id":"","brain":""}`,
		`{"agent_id":"a\u0000","brain":"/b"}`,
		`{"agent_id":"a","brain":"/b","theme":"<script>alert(1)</script>"}`,
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		// A fresh registry each run: without a watch, every beat lists the
		// store, and a folder the fuzzer filled would slow it to a crawl.
		store := dirstoretest.Open(t)
		h := &Handler{App: &hall.Hall{Service: presence.NewService(store, presence.Config{Logger: slog.New(slog.DiscardHandler)})}, Log: slog.New(slog.DiscardHandler)}
		before, _ := os.ReadDir(store.Dir())
		rec := httptest.NewRecorder()
		h.serve(h.HandleBeat)(rec, httptest.NewRequest(http.MethodPost, "/api/presences/beat", strings.NewReader(string(body))))
		switch {
		case rec.Code >= 500:
			t.Fatalf("status %d for %q", rec.Code, body)
		case rec.Code >= 400:
			var e contract.ErrorResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" || e.Detail == "" {
				t.Fatalf("4xx without {error, detail}: %q", rec.Body.String())
			}
			after, _ := os.ReadDir(store.Dir())
			if len(after) != len(before) {
				t.Fatalf("a refused beat changed the store: %d files, then %d", len(before), len(after))
			}
		case rec.Code == 200:
			var resp contract.BeatResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
				t.Fatal(err)
			}
			if resp.Stored {
				if _, err := store.Get(t.Context(), resp.PresenceID); err != nil {
					t.Fatalf("stored beat %s does not read back: %v", resp.PresenceID, err)
				}
			}
		default:
			t.Fatalf("unexpected status %d", rec.Code)
		}
	})
}
