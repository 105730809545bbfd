package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/presence"
)

// HandleMCP serves /mcp (GET, POST and DELETE): the Hall's MCP tools over
// streamable HTTP (internal/mcp), under the same edge as every route. Its
// writing tools check the token per call, since its reads stay open. 404
// when this Hall serves no MCP.
func (h *Handler) HandleMCP(w http.ResponseWriter, r *http.Request) {
	if h.MCP == nil {
		writeError(w, presence.Errorf(presence.ENOTFOUND, "this Hall serves no MCP endpoint"), "not_found")
		return
	}
	h.MCP.ServeHTTP(w, r)
}
