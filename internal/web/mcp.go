package web

import (
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
)

// HandleMCP serves /mcp (GET, POST and DELETE): the Hall's MCP tools over
// streamable HTTP (internal/mcp), under the same edge as every route. Its
// writing tools check the token per call, since its reads stay open. 404
// when this Hall serves no MCP.
func (h *Handler) HandleMCP(w http.ResponseWriter, r *http.Request) error {
	if h.MCP == nil {
		return contract.Refuse(contract.KindNotFound, "not_found", "this Hall serves no MCP endpoint")
	}
	h.MCP.ServeHTTP(w, r)
	return nil
}

// WriteRule is the Hall's write rule over an Authorization header, for a
// surface that checks it per call rather than per route: the MCP tools
// (internal/mcp has it injected, so the two rules cannot differ). Nil
// when the Hall has no write token; otherwise 401 unauthorized unless the
// header carries the token.
func WriteRule(token string) func(authorization string) error {
	if token == "" {
		return nil
	}
	return func(authorization string) error {
		if !BearerMatches(token, authorization) {
			return contract.Refuse(contract.KindUnauthorized, "unauthorized", "%s", ErrTokenRequired.Error())
		}
		return nil
	}
}
