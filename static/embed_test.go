package static

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestAssetsHashNames(t *testing.T) {
	a, err := New(fstest.MapFS{
		"site.css": {Data: []byte("body{}")},
		"site.js":  {Data: []byte("1")},
		"embed.go": {Data: []byte("package static")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.Names(), ","); got != "site.css,site.js" {
		t.Errorf("names: got %s, want the assets without Go files", got)
	}
	css := a.Path("site.css")
	if !strings.HasPrefix(css, "/static/site.") || !strings.HasSuffix(css, ".css") || len(css) != len("/static/site.0123456789.css") {
		t.Errorf("path: got %q, want /static/site.<10 hex>.css", css)
	}
	got, ok := a.Lookup(strings.TrimPrefix(css, URLPrefix))
	if !ok || string(got.Body) != "body{}" || !strings.HasPrefix(got.ContentType, "text/css") {
		t.Errorf("lookup %s: %+v, %v", css, got, ok)
	}
	if _, ok := a.Lookup("site.css"); ok {
		t.Error("a plain name is found; only hashed names may be served")
	}

	// A change of content is a change of name.
	b, err := New(fstest.MapFS{"site.css": {Data: []byte("body{color:red}")}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Path("site.css") == css {
		t.Error("new content kept the old name: browsers would keep the cached file")
	}
}

func TestEmbeddedAssets(t *testing.T) {
	a := Embedded()
	if got := strings.Join(a.Names(), ","); got != "hall.css,hall.js,icon-alert.svg,icon.svg" {
		t.Errorf("embedded: got %s", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Path of a file that is not embedded did not panic")
		}
	}()
	a.Path("missing.css")
}
