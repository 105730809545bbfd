package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// ServeStream serves one SSE stream of the roster narrowed by f: a snapshot
// event (or, for a Last-Event-ID this run can resume from, exactly the
// diffs after it), then diff events as they happen, and a comment line
// every Heartbeat. The caller has already refused bad input (an unknown
// brain gets its 404 before this is called). Last-Event-ID comes from the
// header, else the last_event_id query parameter (for clients that cannot
// set headers); an id that is malformed, too old, or from another run gets
// a fresh snapshot, never an error.
func (h *Hub) ServeStream(w http.ResponseWriter, r *http.Request, f Filter) {
	lastID := r.Header.Get("Last-Event-ID")
	if lastID == "" {
		lastID = r.URL.Query().Get("last_event_id")
	}
	s := h.pool.NewStream()
	st, err := h.subscribe(r.Context(), s, f, lastID)
	if err != nil {
		refusal, after := contract.Refuse(contract.KindUnavailable, "shutting_down", "the Hall is shutting down"), time.Second
		if errors.Is(err, ErrFull) {
			after = h.cfg.FullRetryAfter
			refusal = contract.Refuse(contract.KindUnavailable, "too_many_streams",
				"this Hall serves at most %d live streams at once (--max-streams); try again in %s, or poll GET /api/presences", h.cfg.MaxSubscribers, after)
		}
		w.Header().Set("Retry-After", strconv.Itoa(int(after.Round(time.Second)/time.Second)))
		httpwire.WriteError(w, h.cfg.Log, refusal)
		return
	}

	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Connection", "keep-alive")
	hd.Set("X-Accel-Buffering", "no") // nginx: pass each event through at once
	h.pool.Serve(r.Context(), w, s, h.firstEvents(f, st))
}

// firstEvents is what a stream starts with: the reconnect delay, then the
// snapshot or the diffs to resume from.
func (h *Hub) firstEvents(f Filter, st start) [][]byte {
	var first bytes.Buffer
	first.WriteString("retry: " + strconv.FormatInt(h.cfg.Retry.Milliseconds(), 10) + "\n\n")
	if !st.resume {
		return append([][]byte{first.Bytes()}, h.snapshotFrame(f, st)...)
	}
	for _, c := range st.replay {
		if d, keep := f.diff(c); keep {
			first.Write(encodeEvent(formatID(h.base, c.seq), "diff", d))
		}
	}
	return [][]byte{first.Bytes()}
}

// encodeEvent frames one SSE event. JSON never holds a raw newline, so the
// data is one line; the id is a number, so no field can break the framing.
func encodeEvent(id, event string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		// The wire types always marshal; this is a programming error.
		panic("stream: encode " + event + ": " + err.Error())
	}
	b := make([]byte, 0, len(data)+len(id)+len(event)+24)
	b = append(b, "id: "...)
	b = append(b, id...)
	b = append(b, "\nevent: "...)
	b = append(b, event...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	return b
}

// snapshotFrames caches the encoded snapshot event of the latest seq, per
// filter: a thousand subscribers arriving at one roster share one encoding
// (and the heap is spared a copy of the roster per subscriber); each frame
// is stamped with its own served_at_ms.
type snapshotFrames struct {
	mu sync.Mutex
	m  map[Filter]snapshotFrame
}

type snapshotFrame struct {
	seq     uint64
	failed  bool // the roster was dropped (an unreadable store)
	stamped contract.Stamped
}

// maxSnapshotFrames bounds the cache: one entry per distinct filter.
const maxSnapshotFrames = 256

// snapshotFrame returns the snapshot event that starts a stream at st, in
// parts: the roster's encoding is shared by every subscriber arriving at
// it (and must not be modified); only the id and served_at_ms are the
// stream's own.
func (h *Hub) snapshotFrame(f Filter, st start) [][]byte {
	id := formatID(h.base, st.seq)
	h.frames.mu.Lock()
	fr, ok := h.frames.m[f]
	h.frames.mu.Unlock()
	if !ok || fr.seq != st.seq || fr.failed != (st.snapErr != nil) {
		stamped, err := contract.NewStamped(f.response(st.snap, st.snapErr, id))
		if err != nil {
			panic("stream: " + err.Error()) // the wire types always encode
		}
		fr = snapshotFrame{seq: st.seq, failed: st.snapErr != nil, stamped: stamped}
		h.frames.mu.Lock()
		if h.frames.m == nil || len(h.frames.m) >= maxSnapshotFrames {
			h.frames.m = map[Filter]snapshotFrame{}
		}
		h.frames.m[f] = fr
		h.frames.mu.Unlock()
	}
	head, stamp, tail := fr.stamped.Split(st.snap.AtMs)
	return [][]byte{[]byte("id: " + id + "\nevent: snapshot\ndata: "), head, stamp, tail, eventEnd}
}

// eventEnd ends an event.
var eventEnd = []byte("\n\n")
