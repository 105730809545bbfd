// Package schematest compiles the Hall's published schemas for tests and
// checks JSON bodies against them, with
// github.com/santhosh-tekuri/jsonschema/v6.
//
// The schemas are fetched from a running Hall (FromHall: the index, then
// each schema at its $id, every $ref resolved over HTTP from the same
// Hall) or taken from the embedded files (Embedded). Either way they can be
// compiled Strict: every object schema that leaves its extra properties
// open is closed (unevaluatedProperties false), so a field the Hall sends
// and no schema names fails the test, though the published files stay
// open for clients.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hall-dev/hall/internal/contract/schema"
)

// Mode says whether the schemas are compiled as published or closed.
type Mode int

const (
	// Published compiles the schemas as the Hall serves them.
	Published Mode = iota
	// Strict closes every open object schema, to catch undeclared fields.
	Strict
)

// EmbeddedBase is the Hall the embedded schemas are placed at: their $ids
// are paths, resolved against it.
const EmbeddedBase = "http://hall.invalid"

// Set is every schema of a Hall, compiled.
type Set struct {
	base    string
	schemas map[string]*jsonschema.Schema // by name: "presences"
}

// FromHall fetches GET base/api/schema/ and compiles every schema it
// lists, loading each (and what it refers to) over HTTP from base.
func FromHall(tb testing.TB, base string, mode Mode) *Set {
	tb.Helper()
	var idx schema.Index
	body, err := get(base + schema.URLPrefix)
	if err == nil {
		err = json.Unmarshal(body, &idx)
	}
	if err != nil {
		tb.Fatalf("schema index: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(httpLoader{mode: mode})
	return compile(tb, c, base, idx)
}

// Embedded compiles the embedded schema files, placed at EmbeddedBase.
func Embedded(tb testing.TB, mode Mode) *Set {
	tb.Helper()
	idx, err := schema.List()
	if err != nil {
		tb.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	for _, e := range idx.Schemas {
		b, err := fs.ReadFile(schema.FS(), e.Name+schema.Suffix)
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := decode(b, mode)
		if err != nil {
			tb.Fatalf("schema %s: %v", e.Name, err)
		}
		if err := c.AddResource(EmbeddedBase+e.ID, doc); err != nil {
			tb.Fatalf("schema %s: %v", e.Name, err)
		}
	}
	return compile(tb, c, EmbeddedBase, idx)
}

func compile(tb testing.TB, c *jsonschema.Compiler, base string, idx schema.Index) *Set {
	tb.Helper()
	if len(idx.Schemas) == 0 {
		tb.Fatal("the schema index lists no schema")
	}
	s := &Set{base: base, schemas: map[string]*jsonschema.Schema{}}
	for _, e := range idx.Schemas {
		sch, err := c.Compile(base + e.ID)
		if err != nil {
			tb.Fatalf("compile schema %s: %v", e.Name, err)
		}
		s.schemas[e.Name] = sch
	}
	return s
}

// Names lists the compiled schemas.
func (s *Set) Names() []string {
	out := make([]string, 0, len(s.schemas))
	for n := range s.schemas {
		out = append(out, n)
	}
	return out
}

// Validate checks body against the named schema: nil when it conforms.
func (s *Set) Validate(name string, body []byte) error {
	sch, ok := s.schemas[name]
	if !ok {
		return fmt.Errorf("no schema %q", name)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("decode body: %w", err)
	}
	return sch.Validate(v)
}

// Check fails the test unless body conforms to the named schema; what
// names the body in the message. A roster (presences, or a stream's
// snapshot, which is one) is checked against m1nd's P1-UI schema too.
func (s *Set) Check(tb testing.TB, name, what string, body []byte) {
	tb.Helper()
	if err := s.Validate(name, body); err != nil {
		tb.Errorf("%s does not conform to %s%s: %v\nbody: %s", what, name, schema.Suffix, err, clip(body))
	}
	if name == "presences" || name == "snapshot" {
		CheckP1UI(tb, what, body)
	}
}

// P1UI names the schema of m1nd's P1-UI contract (PresenceResponse, from
// m1nd-ui's types): every answer of GET /api/presences conforms to it as
// well as to presences.schema.json.
const P1UI = "p1-ui-presences"

// p1ui is the P1-UI schema compiled once, as embedded. It is open by
// design (TypeScript's object types are), so it is compiled as published.
var p1ui = sync.OnceValues(func() (*jsonschema.Schema, error) {
	b, ok := schema.Lookup(P1UI + schema.Suffix)
	if !ok {
		return nil, fmt.Errorf("no %s schema", P1UI)
	}
	doc, err := decode(b, Published)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	u := EmbeddedBase + schema.URLPrefix + P1UI + schema.Suffix
	if err := c.AddResource(u, doc); err != nil {
		return nil, err
	}
	return c.Compile(u)
})

// CheckP1UI fails the test unless body, a roster, conforms to m1nd's
// P1-UI schema.
func CheckP1UI(tb testing.TB, what string, body []byte) {
	tb.Helper()
	sch, err := p1ui()
	if err == nil {
		var v any
		if v, err = jsonschema.UnmarshalJSON(bytes.NewReader(body)); err == nil {
			err = sch.Validate(v)
		}
	}
	if err != nil {
		tb.Errorf("%s does not conform to m1nd's P1-UI contract (%s%s): %v\nbody: %s", what, P1UI, schema.Suffix, err, clip(body))
	}
}

// CheckAnswer checks a GET's answer wherever the test got it: a 200 of
// GET /api/presences (any query) against m1nd's P1-UI schema; anything
// else is left alone. Test helpers that fetch JSON call it, so every
// roster a test reads is held to the P1-UI contract.
func CheckAnswer(tb testing.TB, rawURL string, status int, body []byte) {
	tb.Helper()
	u, err := url.Parse(rawURL)
	if err != nil || status != http.StatusOK || u.Path != "/api/presences" {
		return
	}
	CheckP1UI(tb, "GET "+u.RequestURI(), body)
}

func clip(b []byte) string {
	const max = 4000
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// httpLoader loads schemas over HTTP, as a client of the Hall would.
type httpLoader struct{ mode Mode }

func (l httpLoader) Load(u string) (any, error) {
	pu, err := url.Parse(u)
	if err != nil || pu.Scheme != "http" {
		return nil, fmt.Errorf("load %s: only http URLs of the Hall", u)
	}
	body, err := get(u)
	if err != nil {
		return nil, err
	}
	return decode(body, l.mode)
}

func get(u string) ([]byte, error) {
	resp, err := http.Get(u)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", u, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/") || !strings.Contains(ct, "json") {
		return nil, fmt.Errorf("GET %s: Content-Type %q, want JSON", u, ct)
	}
	return body, nil
}

// decode parses a schema document, closing it when strict.
func decode(b []byte, mode Mode) (any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if mode == Strict {
		closeObjects(doc)
	}
	return doc, nil
}

// closeObjects sets unevaluatedProperties false on every object schema (one with
// "type": "object") that says nothing of extra properties. Subschemas
// without a type (if/then branches, allOf parts) are left as they are:
// unevaluatedProperties sees the properties they evaluate.
func closeObjects(v any) {
	switch x := v.(type) {
	case map[string]any:
		if x["type"] == "object" {
			_, a := x["additionalProperties"]
			_, u := x["unevaluatedProperties"]
			if !a && !u {
				x["unevaluatedProperties"] = false
			}
		}
		for k, sub := range x {
			if k == "const" || k == "enum" {
				continue // values, not schemas
			}
			closeObjects(sub)
		}
	case []any:
		for _, sub := range x {
			closeObjects(sub)
		}
	}
}
