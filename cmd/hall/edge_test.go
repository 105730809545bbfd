package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
)

// get fetches u with the headers, returning the status, the headers and
// the body.
func get(tb testing.TB, u string, header map[string]string) (int, http.Header, string) {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), http.MethodGet, u, nil)
	if err != nil {
		tb.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req) // no redirects followed
	if err != nil {
		tb.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// An unknown brain's 404 names the brain as the caller gave it, on every
// surface that answers one, never where this host's symlinks lead.
func TestEdgeUnknownBrainEchoesTheBrainAsGiven(t *testing.T) {
	tmp := t.TempDir()
	target := filepath.Join(tmp, "private-target-of-the-link")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	m := MustOpenHall(t, Config{})
	q := "?brain=" + url.QueryEscape(link)
	for _, path := range []string{"/api/presences", "/api/presences/stream", "/api/cockpit", "/"} {
		status, _, body := get(t, m.URL()+path+q, nil)
		if status != http.StatusNotFound {
			t.Errorf("%s: got %d, want 404", path, status)
		}
		if path != "/" {
			var e contract.ErrorResponse
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error != "unknown_brain" {
				t.Errorf("%s: got %q, want {\"error\":\"unknown_brain\",…}", path, body)
			}
		}
		if !strings.Contains(body, link) || strings.Contains(body, "private-target-of-the-link") {
			t.Errorf("%s: got %q, want the brain as given (%s), not the link's target", path, body, link)
		}
	}
}

// A brain asked for on a read follows the rules of shown text: a bidi
// control, a control character or an over-long path is a 400 naming the
// brain, on every read that takes one.
func TestEdgeReadsRefuseBrainsThatCannotBeShown(t *testing.T) {
	m := MustOpenHall(t, Config{})
	for _, brain := range []string{"/srv/\u202eshop", "/srv/\u2066shop", "/srv/sh\x01op", "/" + strings.Repeat("p", 1024)} {
		q := "?brain=" + url.QueryEscape(brain)
		for _, path := range []string{"/api/presences", "/api/presences/stream", "/api/cockpit", "/api/north?agent_id=a&brain=" + url.QueryEscape(brain)} {
			u := m.URL() + path
			if !strings.Contains(path, "?") {
				u += q
			}
			status, _, body := get(t, u, nil)
			var e contract.ErrorResponse
			_ = json.Unmarshal([]byte(body), &e)
			if status != http.StatusBadRequest || e.Error != "invalid_brain" || !strings.Contains(e.Detail, "brain") {
				t.Errorf("%s with brain %+q: got %d %q, want 400 invalid_brain naming the brain", path, brain, status, body)
			}
		}
		if status, _, _ := get(t, m.URL()+"/"+q, nil); status != http.StatusBadRequest {
			t.Errorf("page with brain %+q: got %d, want 400", brain, status)
		}
	}
	status, _, body := get(t, m.URL()+"/api/north?agent_id="+url.QueryEscape("claude-\u200b7")+"&brain=/srv/shop", nil)
	if status != http.StatusBadRequest || !strings.Contains(body, "agent_id") {
		t.Errorf("north with a zero-width space in agent_id: got %d %q, want 400 naming agent_id", status, body)
	}
}
