package web

import (
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
)

// TestDecodeBodyRefusals: the beat and the check read their bodies with
// one decoder: each way a body is not one JSON object of known fields
// is the same {"error","detail"} answer on both, the detail naming the
// request, and nothing is written.
func TestDecodeBodyRefusals(t *testing.T) {
	th := newTestHall(t, "")
	tooLarge := `{"brain":"/srv/shop","theme":"` + strings.Repeat("x", MaxBeatBody) + `"}`
	cases := []struct {
		name   string
		body   string
		status int
		code   string
	}{
		{"too large", tooLarge, 413, "body_too_large"},
		{"not JSON", `brain=/srv/shop`, 400, "malformed_json"},
		{"cut short", `{"brain":"/srv/shop",`, 400, "malformed_json"},
		{"empty", ``, 400, "malformed_json"},
		{"trailing data", `{"brain":"/srv/shop"} {"brain":"/srv/shop"}`, 400, "malformed_json"},
		{"trailing garbage", `{"brain":"/srv/shop"} x`, 400, "malformed_json"},
		{"wrong type", `{"brain":7}`, 400, "malformed_json"},
		{"not an object", `["/srv/shop"]`, 400, "malformed_json"},
		{"unknown field", `{"brain":"/srv/shop","mood":"happy"}`, 400, "malformed_json"},
	}
	for _, route := range []struct{ path, what string }{{"/api/presences/beat", "decode beat"}, {"/api/presences/check", "decode check"}} {
		for _, tc := range cases {
			t.Run(route.what+"/"+tc.name, func(t *testing.T) {
				r := th.do(t, "POST", route.path, tc.body, nil)
				var e contract.ErrorResponse
				r.decode(t, &e)
				if r.status != tc.status || e.Error != tc.code {
					t.Errorf("got %d %+v, want %d %s", r.status, e, tc.status, tc.code)
				}
				if tc.status == 400 && !strings.Contains(e.Detail, route.what) {
					t.Errorf("detail %q: want it to say %q", e.Detail, route.what)
				}
				if tc.status == 413 && !strings.Contains(e.Detail, "65536 bytes") {
					t.Errorf("detail %q: want the bound", e.Detail)
				}
				if files := th.files(t); len(files) != 0 {
					t.Errorf("bad input wrote %v", files)
				}
			})
		}
	}
}
