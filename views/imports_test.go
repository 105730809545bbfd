package views

import (
	"go/build"
	"strings"
	"testing"
)

// TestViewsKnowNoTransport: the views read the wire types and nothing that
// carries them: no package of the Hall's HTTP handlers or of its stream,
// directly or through another of the Hall's packages.
func TestViewsKnowNoTransport(t *testing.T) {
	const module = "github.com/hall-dev/hall/"
	forbidden := []string{module + "internal/web", module + "internal/stream", module + "internal/hall"}
	seen := map[string]bool{}
	var walk func(path, dir string, via []string)
	walk = func(path, dir string, via []string) {
		if seen[path] {
			return
		}
		seen[path] = true
		for _, f := range forbidden {
			if path == f || strings.HasPrefix(path, f+"/") {
				t.Errorf("views import %s (via %s)", path, strings.Join(via, " → "))
			}
		}
		pkg, err := build.Import(path, dir, 0)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module) {
				walk(imp, pkg.Dir, append(via, path))
			}
		}
	}
	walk(module+"views", ".", nil)
	if !seen[module+"internal/contract"] {
		t.Fatal("the walk did not reach internal/contract: it reads no imports")
	}
}
