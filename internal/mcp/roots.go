//lint:file-ignore SA1019 MCP roots are deprecated as of protocol 2026-07-28 (SEP-2577) but stay functional for at least a year; the Hall reads a client's roots to default caller_root, and passing paths as tool parameters (caller_root, brain) already works alongside.

package mcp

import (
	"context"
	"net/url"
	"path/filepath"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsTimeout bounds the wait for a client's roots: a client that never
// answers costs one call this much once, and its agent falls back to the
// server's directory.
const rootsTimeout = time.Second

// serverAsksNoMore is the protocol version from which a server may no
// longer send a client requests of its own (SEP-2322): it asks for roots
// through the call's answer instead, and the client calls again.
const serverAsksNoMore = "2026-07-28"

// callerDir is where the session's agent works when a call does not say:
// its client's first file root, else Config.Dir; "" when neither is known.
// Roots are asked once a session (again after the client says they
// changed). On protocol versions where a server may not ask by itself, the
// call returns *needsInput and the SDK retries it with the roots.
func (s *server) callerDir(ctx context.Context, req *sdk.CallToolRequest) (string, error) {
	roots, asked := s.sessions.knownRoots(req.Session)
	if !asked {
		var err error
		if roots, err = s.askRoots(ctx, req); err != nil {
			return "", err
		}
		s.sessions.setRoots(req.Session, roots)
	}
	if len(roots) > 0 {
		return roots[0], nil
	}
	return s.cfg.Dir, nil
}

func (s *server) askRoots(ctx context.Context, req *sdk.CallToolRequest) ([]string, error) {
	s.sessions.get(req.Session)
	if r, ok := req.Params.InputResponses["roots"].(*sdk.ListRootsResult); ok {
		return rootPaths(r), nil
	}
	if v := req.ProtocolVersion(); v != "" && v < serverAsksNoMore {
		// A session on the protocol every client speaks today: the server
		// asks the client itself.
		ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
		defer cancel()
		r, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			s.log.Debug("mcp client sent no roots", "err", err)
			return nil, nil
		}
		return rootPaths(r), nil
	}
	if caps := req.ClientCapabilities(); caps != nil && caps.RootsV2 != nil {
		return nil, &needsInput{requests: sdk.InputRequestMap{"roots": &sdk.ListRootsParams{}}}
	}
	return nil, nil
}

// rootPaths keeps the roots that are absolute file:// paths, in order.
func rootPaths(r *sdk.ListRootsResult) []string {
	var out []string
	for _, root := range r.Roots {
		u, err := url.Parse(root.URI)
		if err != nil || u.Scheme != "file" || !filepath.IsAbs(u.Path) {
			continue
		}
		out = append(out, filepath.Clean(u.Path))
	}
	return out
}
