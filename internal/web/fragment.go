package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/a-h/templ"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/views"
)

// fragments are the regions of the Hall page that can be served alone.
var fragments = map[string]func(views.Hall) templ.Component{
	"banner":     views.Banner,
	"strip":      views.Strip,
	"drill":      func(h views.Hall) templ.Component { return views.Drill(h.Data, h.CollidingSet()) },
	"recent":     func(h views.Hall) templ.Component { return views.Recent(h.Recent, h.Data.ServedAtMs) },
	"losses":     views.Losses,
	"collisions": views.CollisionList,
	"overlaps":   views.OverlapPicture,
	"roster":     views.Roster,
	"picker":     func(h views.Hall) templ.Component { return views.Picker(h.Brain, h.Brains) },
}

// hallRegions is the fragment "hall": every region the live page swaps, in
// one response.
var hallRegions = []string{"banner", "strip", "recent", "losses", "collisions", "overlaps", "roster", "picker"}

// HandleFragment serves GET /fragments/{name}[?brain=][&roster=all]: one
// region of the Hall page as HTML (banner, strip, drill, recent, losses,
// collisions, overlaps, roster, picker), rendered by the same templates as the page,
// or "hall", every region the live page swaps. Each region's root carries
// data-region and data-hash, a hash of its bytes; a request whose
// X-Hall-Have header lists a region's hash (space-separated) is sent the
// other regions only. Ages are left to the page's script, so an unchanged
// region is the same bytes at every cursor. A body is rendered once per
// cursor, brain and name, and carries an ETag: an If-None-Match that still
// matches gets 304. A brain the Hall does not know (any more) renders
// empty, as a client treats the contract's 404; a brain that is not an
// absolute path, or an unknown name, is a 4xx.
func (h *Handler) HandleFragment(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if _, ok := fragments[name]; !ok && name != "hall" {
		return contract.Refuse(contract.KindNotFound, "unknown_fragment", "no fragment %q", name)
	}
	q := r.URL.Query()
	v, err := h.App.View(r.Context(), q.Get("brain"))
	if err != nil && !contract.IsNotFound(err) {
		return err
	}
	all := q.Get("roster") == "all"
	cursor := v.Cursor
	key := fragmentKey{name: name, brain: v.Brain, all: all}
	if cursor != "" {
		etag := fragmentETag(cursor, key)
		w.Header().Set("ETag", etag)
		w.Header().Set("Cache-Control", "no-cache")
		if match := r.Header.Get("If-None-Match"); match != "" && etagMatches(match, etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	} else {
		w.Header().Set("Cache-Control", "no-store")
	}
	regions, err := h.frags.get(cursor, key, func() ([]views.Region, error) {
		model := h.hallModel(v, all)
		model.Data.ServedAtMs = 0 // ages are the script's
		names := []string{name}
		if name == "hall" {
			names = hallRegions
		}
		// One rendering serves every page that asks at this cursor: it
		// must not stop because the page that asked first went away.
		return renderRegions(context.WithoutCancel(r.Context()), model, names)
	})
	if err != nil {
		return fmt.Errorf("render fragment %s: %w", name, err)
	}
	have := strings.Fields(r.Header.Get("X-Hall-Have"))
	if len(have) > maxHave {
		have = nil // not a page's list: send everything
	}
	haveSet := make(map[string]bool, len(have))
	for _, h := range have {
		haveSet[h] = true
	}
	// The rows a page has are sent as their opening tag alone: the page
	// keeps a row whose signature did not change without looking inside,
	// and still finds it by key. Every beat changes a row and so its
	// region; this way the region carries the changed rows only, not all 50.
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Vary", "X-Hall-Have")
	w.WriteHeader(http.StatusOK)
	for _, rg := range regions {
		if !haveSet[rg.Hash] {
			_ = rg.WriteWithout(w, haveSet) // the page that asked went away
		}
	}
	return nil
}

// maxHave bounds the hashes X-Hall-Have may list: the regions, and the
// signatures of the rows a page shows (50, or every row with
// ?roster=all). A longer list is not a page's, and is ignored.
const maxHave = 4096

// renderRegions renders the named regions for the live page: each marked
// with its hash, its rows with their signatures, by the templates
// (views.RenderRegion).
func renderRegions(ctx context.Context, model views.Hall, names []string) ([]views.Region, error) {
	out := make([]views.Region, 0, len(names))
	for _, n := range names {
		rg, err := views.RenderRegion(ctx, fragments[n](model))
		if err != nil {
			return nil, fmt.Errorf("region %s: %w", n, err)
		}
		out = append(out, rg)
	}
	return out, nil
}

type fragmentKey struct {
	name, brain string
	all         bool
}

// fragmentETag tags a fragment at a cursor: one cursor is one roster, and
// one history of recent events.
func fragmentETag(cursor string, k fragmentKey) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%t", k.name, k.brain, k.all)))
	return `"f` + cursor + "-" + hex.EncodeToString(sum[:4]) + `"`
}

// fragmentBodies caches rendered fragments of the latest cursor: every
// open page asks for the same regions after each diff, and one rendering
// serves them all. It holds one cursor's bodies, at most
// maxCachedBodies of them.
type fragmentBodies struct {
	mu     sync.Mutex
	cursor string
	m      map[fragmentKey][]views.Region
}

func (c *fragmentBodies) get(cursor string, k fragmentKey, render func() ([]views.Region, error)) ([]views.Region, error) {
	if cursor == "" {
		return render()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cursor == cursor {
		if b, ok := c.m[k]; ok {
			return b, nil
		}
	}
	b, err := render()
	if err != nil {
		return nil, err
	}
	if c.cursor != cursor || len(c.m) >= maxCachedBodies {
		c.cursor, c.m = cursor, map[fragmentKey][]views.Region{}
	}
	c.m[k] = b
	return b, nil
}
