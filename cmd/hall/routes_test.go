package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// The route table's net/http patterns become Echo paths.
func TestEchoPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/{$}", "/"},
		{"/api/presences", "/api/presences"},
		{"/static/{name}", "/static/:name"},
		{"/api/presences/{presence_id}", "/api/presences/:presence_id"},
		{"/a/{x}/b/{y}", "/a/:x/b/:y"},
	}
	for _, tt := range tests {
		if got := echoPath(tt.in); got != tt.want {
			t.Errorf("echoPath(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestUnknownRoutes: through Echo, as the Hall serves it, a path no route
// serves is the 404 page for a browser and the JSON error under /api/; a
// known path asked with another method stays a 405 in JSON.
func TestUnknownRoutes(t *testing.T) {
	m := MustOpenHall(t, Config{})
	do := func(method, path, accept string) (*http.Response, string) {
		req, _ := http.NewRequest(method, m.URL()+path, nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	const browser = "text/html,application/xhtml+xml,*/*;q=0.8"
	tests := []struct {
		method, path, accept string
		status               int
		contentType, body    string
	}{
		{"GET", "/nope", browser, 404, "text/html", `data-testid="not-found-heading"`},
		{"GET", "/static", browser, 404, "text/html", `data-testid="not-found-heading"`},
		{"GET", "/api/nope", browser, 404, "application/json", `"error":"not_found"`},
		{"GET", "/nope", "*/*", 404, "application/json", `"error":"not_found"`},
		{"POST", "/api/presences", "*/*", 405, "application/json", `"error":"method_not_allowed"`},
	}
	for _, tt := range tests {
		resp, body := do(tt.method, tt.path, tt.accept)
		if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentType) || !strings.Contains(body, tt.body) {
			t.Errorf("%s %s (Accept %s): got %d %q %.200s, want %d %s containing %s",
				tt.method, tt.path, tt.accept, resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.contentType, tt.body)
		}
		if resp.Header.Get("Content-Security-Policy") == "" {
			t.Errorf("%s %s: no security headers", tt.method, tt.path)
		}
	}
}
