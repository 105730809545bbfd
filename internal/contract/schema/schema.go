// Package schema holds the Hall's published JSON contract as JSON Schema
// (draft 2020-12) files, embedded in the binary and served under URLPrefix:
// one file per response (and the beat request), each with the $id the Hall
// serves it at, so a client that fetches one from a Hall resolves the
// others it refers to from the same Hall.
//
// The files are written from the wire types in internal/contract and what
// the handlers send; tests validate real responses of a running Hall
// against them (cmd/hall/schema_test.go), so the two cannot drift apart.
//
// Responses are open: a schema does not forbid fields it does not name, so
// a field the Hall adds later is additive for a client that validates with
// today's copy. The tests close them (see schematest.Strict): a field the
// Hall sends and no schema names fails CI. The beat request is closed in
// the published file too, because the Hall refuses unknown fields.
package schema

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

//go:embed *.schema.json
var files embed.FS

// URLPrefix is where the schemas are served; a schema's $id is URLPrefix
// and its file name.
const URLPrefix = "/api/schema/"

// Suffix ends every schema's file name.
const Suffix = ".schema.json"

// Entry names one schema in the Index.
type Entry struct {
	Name  string `json:"name"`  // "presences"
	ID    string `json:"id"`    // "/api/schema/presences.schema.json", its $id
	Title string `json:"title"` // what it describes, e.g. "GET /api/presences"
}

// Index is GET /api/schema/: every schema the Hall serves.
type Index struct {
	Schemas []Entry `json:"schemas"`
}

// FS is the embedded schema files, at its top level.
func FS() fs.FS { return files }

// Lookup returns the schema file named file ("presences.schema.json").
func Lookup(file string) ([]byte, bool) {
	if strings.ContainsAny(file, "/\\") || !strings.HasSuffix(file, Suffix) {
		return nil, false
	}
	b, err := fs.ReadFile(files, file)
	return b, err == nil
}

var index = sync.OnceValues(readIndex)

// List returns the index of every embedded schema, sorted by name. It
// fails only if a file is not a schema with a $id and a title, which the
// package's tests rule out.
func List() (Index, error) { return index() }

func readIndex() (Index, error) {
	names, err := fs.Glob(files, "*"+Suffix)
	if err != nil {
		return Index{}, fmt.Errorf("list schemas: %w", err)
	}
	sort.Strings(names)
	out := Index{Schemas: make([]Entry, 0, len(names))}
	for _, file := range names {
		b, err := fs.ReadFile(files, file)
		if err != nil {
			return Index{}, fmt.Errorf("read schema %s: %w", file, err)
		}
		var head struct {
			ID    string `json:"$id"`
			Title string `json:"title"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return Index{}, fmt.Errorf("decode schema %s: %w", file, err)
		}
		if head.ID != URLPrefix+file || head.Title == "" {
			return Index{}, fmt.Errorf("schema %s: $id %q, title %q: want $id %q and a title", file, head.ID, head.Title, URLPrefix+file)
		}
		out.Schemas = append(out.Schemas, Entry{Name: strings.TrimSuffix(file, Suffix), ID: head.ID, Title: head.Title})
	}
	return out, nil
}
