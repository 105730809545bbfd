package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// HandleSchemaIndex serves GET /api/schema/: the schemas this Hall serves,
// each with its $id (the path it is served at) and title.
func (h *Handler) HandleSchemaIndex(w http.ResponseWriter, r *http.Request) error {
	idx, err := schema.List()
	if err != nil {
		return fmt.Errorf("list the schemas: %w", err)
	}
	httpwire.WriteJSON(w, http.StatusOK, idx)
	return nil
}

// HandleSchema serves GET /api/schema/{name}: one JSON Schema file of the
// contract, as application/schema+json, with an ETag of its content. Its
// $id is this path, so the files it refers to resolve on the same Hall.
func (h *Handler) HandleSchema(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	body, ok := schema.Lookup(name)
	if !ok {
		return contract.Refuse(contract.KindNotFound, "unknown_schema", "no schema %q: GET %s lists them", name, schema.URLPrefix)
	}
	sum := sha256.Sum256(body)
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:8])+`"`)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(body))
	return nil
}
