package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/hall-dev/hall/internal/contract/schema"
	"github.com/hall-dev/hall/internal/presence"
)

// HandleSchemaIndex serves GET /api/schema/: the schemas this Hall serves,
// each with its $id (the path it is served at) and title.
func (h *Handler) HandleSchemaIndex(w http.ResponseWriter, r *http.Request) {
	idx, err := schema.List()
	if err != nil {
		writeError(w, presence.Errorf(presence.EINTERNAL, "%v", err), "internal")
		return
	}
	writeJSON(w, http.StatusOK, idx)
}

// HandleSchema serves GET /api/schema/{name}: one JSON Schema file of the
// contract, as application/schema+json, with an ETag of its content. Its
// $id is this path, so the files it refers to resolve on the same Hall.
func (h *Handler) HandleSchema(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	body, ok := schema.Lookup(name)
	if !ok {
		writeError(w, presence.Errorf(presence.ENOTFOUND, "no schema %q: GET %s lists them", name, schema.URLPrefix), "unknown_schema")
		return
	}
	sum := sha256.Sum256(body)
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
}
