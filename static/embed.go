// Package static holds the Hall page's stylesheet and script, embedded in
// the binary so the page needs nothing from a CDN or the disk. Each file is
// served under a content-hashed name (hall.3fa94c0e11.css), so a browser may
// cache it forever and a new build still reaches it at once.
//
// It knows nothing of HTTP: internal/web serves what Assets finds, and the
// views reference the names Assets.Path gives.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"sort"
	"strings"
	"sync"
)

//go:embed hall.css hall.js icon.svg icon-alert.svg
var files embed.FS

// URLPrefix is where the assets are served.
const URLPrefix = "/static/"

// Asset is one embedded file under its hashed name.
type Asset struct {
	Name        string // hall.css
	Hashed      string // hall.3fa94c0e11.css
	Hash        string // 3fa94c0e11
	ContentType string
	Body        []byte
}

// Assets maps plain names to hashed ones and back.
type Assets struct {
	byName   map[string]*Asset
	byHashed map[string]*Asset
}

// New hashes every file of fsys (its top level) into an asset map.
func New(fsys fs.FS) (*Assets, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read embedded assets: %w", err)
	}
	a := &Assets{byName: map[string]*Asset{}, byHashed: map[string]*Asset{}}
	for _, e := range entries {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("read asset %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])[:10]
		ext := path.Ext(e.Name())
		ct := mime.TypeByExtension(ext)
		if ct == "" {
			ct = "application/octet-stream"
		}
		as := &Asset{
			Name:        e.Name(),
			Hashed:      strings.TrimSuffix(e.Name(), ext) + "." + hash + ext,
			Hash:        hash,
			ContentType: ct,
			Body:        body,
		}
		a.byName[as.Name] = as
		a.byHashed[as.Hashed] = as
	}
	return a, nil
}

// embedded is computed once: the files cannot change while the binary runs.
var embedded = sync.OnceValues(func() (*Assets, error) { return New(files) })

// Embedded returns the asset map of the files built into the binary. It
// panics if they cannot be read, which only a broken build can cause.
func Embedded() *Assets {
	a, err := embedded()
	if err != nil {
		panic(err)
	}
	return a
}

// Path is the URL of a plain name's hashed file, e.g. /static/hall.3fa94c0e11.css.
// An unknown name panics: the views name only files that are embedded.
func (a *Assets) Path(name string) string {
	as, ok := a.byName[name]
	if !ok {
		panic(fmt.Sprintf("static: no embedded asset %q", name))
	}
	return URLPrefix + as.Hashed
}

// Lookup finds an asset by its hashed name.
func (a *Assets) Lookup(hashed string) (Asset, bool) {
	as, ok := a.byHashed[hashed]
	if !ok {
		return Asset{}, false
	}
	return *as, true
}

// Names lists the plain names, sorted.
func (a *Assets) Names() []string {
	out := make([]string, 0, len(a.byName))
	for n := range a.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
