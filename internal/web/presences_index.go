package web

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// HandlePresencesIndex serves GET /api/presences[?brain=]: the contract.
// Owner-wide without brain; a known brain's roster with served_brain
// echoing its canonical path; 404 for a brain the Hall does not know. An
// unreadable registry is 200 with empty lists and an error: the roster is
// dropped whole. The ETag covers everything but served_at_ms, so a poller's
// If-None-Match gets 304 while nothing changed.
func (h *Handler) HandlePresencesIndex(w http.ResponseWriter, r *http.Request) error {
	v, err := h.App.View(r.Context(), r.URL.Query().Get("brain"))
	if err != nil {
		return err
	}
	if v.Err != nil {
		httpwire.WriteJSON(w, http.StatusOK, v.Response())
		return nil
	}
	// With a cursor the tag is cheap: one cursor is one roster, so a poller
	// that has it gets its 304 before anything is encoded.
	etag := cursorETag(v.Cursor, v.Brain)
	var resp contract.PresencesResponse
	if etag == "" {
		resp = v.Response()
		etag = etagOf(resp)
	}
	w.Header().Set("ETag", etag)
	if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, etag) {
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if v.Cursor != "" {
		// One cursor is one roster: its encoding is made once per brain
		// and reused until the next change, only the clock is fresh.
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(h.bodies.get(v).response(v.Snap.AtMs))
		return nil
	}
	httpwire.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// rosterBodies caches the encoded roster of the latest cursor, per brain.
type rosterBodies struct {
	mu sync.Mutex
	m  map[string]*rosterBody
}

// rosterBody is one brain's contract response at one cursor, encoded
// once; every response stamps its own served_at_ms.
type rosterBody struct {
	cursor  string
	stamped contract.Stamped
}

// maxCachedBodies bounds the cache: one entry per brain asked for.
const maxCachedBodies = 256

func (c *rosterBodies) get(v hall.View) *rosterBody {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.m[v.Brain]; ok && b.cursor == v.Cursor {
		return b
	}
	if c.m == nil || len(c.m) >= maxCachedBodies {
		c.m = map[string]*rosterBody{}
	}
	b := encodeRosterBody(v.Response(), v.Cursor)
	c.m[v.Brain] = b
	return b
}

// encodeRosterBody encodes resp exactly as httpwire.WriteJSON would, but
// for served_at_ms.
func encodeRosterBody(resp contract.PresencesResponse, cursor string) *rosterBody {
	st, err := contract.NewStamped(resp)
	if err != nil {
		panic("web: " + err.Error()) // the wire types always encode
	}
	return &rosterBody{cursor: cursor, stamped: st}
}

func (b *rosterBody) response(servedAtMs int64) []byte {
	out := b.stamped.AppendAt(make([]byte, 0, b.stamped.Len()+1), servedAtMs)
	return append(out, '\n') // as json.Encoder ends a value
}

// cursorETag tags the brain's roster at a cursor; "" without a cursor.
func cursorETag(cursor, brain string) string {
	if cursor == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(brain))
	return `"c` + cursor + "-" + hex.EncodeToString(sum[:4]) + `"`
}

// etagOf hashes the response without its clock, so the tag changes exactly
// when the roster or its collisions do.
func etagOf(resp contract.PresencesResponse) string {
	resp.ServedAtMs = 0
	b, _ := json.Marshal(resp)
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "W/"))
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}
