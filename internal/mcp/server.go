//lint:file-ignore SA1019 MCP roots are deprecated as of protocol 2026-07-28 (SEP-2577) but stay functional for at least a year; the Hall reads a client's roots to default caller_root, and passing paths as tool parameters (caller_root, brain) already works alongside.

package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hallclient"
)

// Config is what a Hall MCP server needs.
type Config struct {
	// Client is the Hall the tools speak to: a running Hall over HTTP, a
	// registry written directly, or the Hall's own service.
	Client hallclient.Client
	// AgentID, when set, is the agent_id every session beats as unless a
	// call names another: `hall mcp --agent-id`, or the Claude Code session
	// it was started by (agentid.FromEnv), so the session's hooks and its
	// MCP calls land on one presence. When empty each MCP session gets its
	// own: the client's name and 8 hex digits of the session (defaultAgent).
	AgentID string
	// Dir is the working directory a session's caller_root defaults to
	// when its client sends no roots: `hall mcp`'s own. Empty in the Hall,
	// whose directory says nothing of its clients': brain is then required.
	Dir string
	// AuthorizeWrite, when set, is the Hall's write rule, applied to
	// handshake and leave with the Authorization header of the request
	// carrying the call (over HTTP, on a Hall with --token): an error
	// refuses the call. The Hall injects its own rule (internal/web's), so
	// the two can never differ. Reads stay open, as on the Hall's other
	// surfaces.
	AuthorizeWrite func(authorization string) error
	// Timeout bounds one tool call, the Hall's answer and the client's
	// roots included; DefaultTimeout when zero.
	Timeout time.Duration
	// Version is the server's version in the MCP handshake.
	Version string
	Log     *slog.Logger
}

// DefaultTimeout bounds a tool call when Config.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// Name is the server's name in the MCP handshake and the tools' prefix
// clients show ("hall").
const Name = "hall"

// instructions is what a client may put in front of its model.
const instructions = `The Hall shows which coding-agent sessions work where, and warns of a collision when two mutating sessions share a worktree, caller root or working set in one brain. Call handshake when you start and whenever what you work on changes (theme, working_set, declared_intent): it answers your north, one line per session you collide with. Call north before editing to check again, presences or cockpit to see who else is here, and leave when you are done. The Hall only warns: deciding what to do about a collision is yours.`

// server holds the tools' shared state.
type server struct {
	cfg      Config
	log      *slog.Logger
	srv      *sdk.Server
	sessions sessions
	live     live
}

// NewServer returns an MCP server with the Hall's five tools. One server
// serves any number of sessions (stdio serves one; the HTTP handler many).
func NewServer(cfg Config) *sdk.Server { return newServer(cfg).srv }

func newServer(cfg Config) *server {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	s := &server{cfg: cfg, log: cfg.Log}
	s.sessions.gone = s.watchWhileSubscribed
	s.srv = sdk.NewServer(&sdk.Implementation{Name: Name, Title: "The Hall", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions:            instructions,
		Logger:                  cfg.Log,
		RootsListChangedHandler: func(_ context.Context, req *sdk.RootsListChangedRequest) { s.sessions.forgetRoots(req.Session) },
		SubscribeHandler:        s.subscribe,
		UnsubscribeHandler:      s.unsubscribe,
	})
	s.addTools(s.srv)
	s.addResources(s.srv)
	return s
}

// addTool registers a tool whose handler answers a structured value and
// its text rendering. The value is encoded without HTML escaping (a theme
// with "<" stays one character, as the budget counts it) and declared by
// the output schema inferred from Out; an error becomes a tool error.
func addTool[In, Out any](s *server, srv *sdk.Server, t *sdk.Tool, h func(ctx context.Context, req *sdk.CallToolRequest, in In) (Out, string, error)) {
	schema, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: output schema of %s: %v", t.Name, err)) // the types are ours
	}
	t.OutputSchema = schema
	sdk.AddTool(srv, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		defer cancel()
		out, text, err := h(ctx, req, in)
		var more *needsInput
		switch {
		case errors.As(err, &more):
			return &sdk.CallToolResult{InputRequests: more.requests}, nil, nil
		case err != nil:
			return s.errorResult(t.Name, err), nil, nil
		}
		raw, err := encode(out)
		if err != nil {
			return nil, nil, fmt.Errorf("encode %s output: %w", t.Name, err)
		}
		return &sdk.CallToolResult{
			Content:           []sdk.Content{&sdk.TextContent{Text: text}},
			StructuredContent: raw,
		}, nil, nil
	})
}

// encode is json.Marshal without HTML escaping.
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// errorResult is a tool error, said as every transport says one
// (contract.Refusal): a refusal by its code and detail (which name the
// field); a failure the Hall did not foresee (a store's or a transport's
// cause, which may name a user's files) logged here at Error with its
// cause, once, and answered as internal with no cause.
func (s *server) errorResult(tool string, err error) *sdk.CallToolResult {
	e, internal := contract.Refusal(err)
	if internal {
		s.log.Error("mcp tool failed", "tool", tool, "err", err)
	}
	text := e.Code + ": " + e.Detail
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: contract.Clip(text, errorWidth) + "\n"}}}
}

// needsInput is a handler asking the client for input first (its roots,
// on protocol versions where the server may not ask by itself): the SDK
// retries the call with the answers.
type needsInput struct{ requests sdk.InputRequestMap }

func (*needsInput) Error() string { return "the client's input is needed first" }

// sessions keeps what the server knows of each MCP session: the agent_id
// it beats as by default, the roots its client sent, the rosters it
// subscribed to. An entry goes when its session closes.
type sessions struct {
	mu   sync.Mutex
	m    map[*sdk.ServerSession]*sessionState
	gone func() // called after a session's entry went
}

type sessionState struct {
	key        string   // what the default agent_id's digits are made from
	roots      []string // the client's roots as paths, once asked
	rootsAsked bool
	subs       map[string]bool // roster URIs subscribed to
}

// get returns the session's state, creating it on first use.
func (ss *sessions) get(s *sdk.ServerSession) *sessionState {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st, ok := ss.m[s]; ok {
		return st
	}
	if ss.m == nil {
		ss.m = map[*sdk.ServerSession]*sessionState{}
	}
	key := s.ID() // the HTTP session id; hashed, never shown
	if key == "" {
		// stdio: the connection is the session, and has no id of its own.
		var b [16]byte
		_, _ = rand.Read(b[:])
		key = hex.EncodeToString(b[:])
	}
	st := &sessionState{key: key}
	ss.m[s] = st
	go func() {
		_ = s.Wait()
		ss.mu.Lock()
		delete(ss.m, s)
		ss.mu.Unlock()
		if ss.gone != nil {
			ss.gone()
		}
	}()
	return st
}

// subscribe records the session's subscription to uri, unless that would
// give the session more than perSession subscriptions or the Hall more
// than max distinct rosters to watch.
func (ss *sessions) subscribe(s *sdk.ServerSession, uri string, max, perSession int) error {
	st := ss.get(s)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st.subs[uri] {
		return nil
	}
	if len(st.subs) >= perSession {
		return limitError(fmt.Sprintf("this session subscribes to %d rosters, its most: unsubscribe from one first", perSession))
	}
	if all := ss.subscribedLocked(); !contains(all, uri) && len(all) >= max {
		return limitError(fmt.Sprintf("the Hall watches %d rosters at once, its most: unsubscribe from one first", max))
	}
	if st.subs == nil {
		st.subs = map[string]bool{}
	}
	st.subs[uri] = true
	return nil
}

func (ss *sessions) unsubscribe(s *sdk.ServerSession, uri string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st, ok := ss.m[s]; ok {
		delete(st.subs, uri)
	}
}

// subscribed lists the roster URIs some session subscribed to, sorted.
func (ss *sessions) subscribed() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.subscribedLocked()
}

func (ss *sessions) subscribedLocked() []string {
	set := map[string]bool{}
	for _, st := range ss.m {
		for uri := range st.subs {
			set[uri] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func (ss *sessions) forgetRoots(s *sdk.ServerSession) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st, ok := ss.m[s]; ok {
		st.roots, st.rootsAsked = nil, false
	}
}

func (ss *sessions) setRoots(s *sdk.ServerSession, roots []string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st, ok := ss.m[s]; ok {
		st.roots, st.rootsAsked = roots, true
	}
}

func (ss *sessions) knownRoots(s *sdk.ServerSession) ([]string, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st, ok := ss.m[s]; ok {
		return st.roots, st.rootsAsked
	}
	return nil, false
}

// defaultAgent is the agent_id of a session that names none: the
// configured one, else the client's name (lowercase letters, digits and
// dashes, at most 32) and the first 8 hex digits of SHA-256 of the session:
// "claude-code-3f9a0c12". It is stable for the session's life; a new
// session is a new presence.
func (s *server) defaultAgent(req *sdk.CallToolRequest) string {
	if s.cfg.AgentID != "" {
		return s.cfg.AgentID
	}
	name := ""
	if ci := req.ClientInfo(); ci != nil {
		name = ci.Name
	}
	sum := sha256.Sum256([]byte(s.sessions.get(req.Session).key))
	return clientSlug(name) + "-" + hex.EncodeToString(sum[:4])
}

// clientSlug makes a client's name an agent_id prefix: lowercase ASCII
// letters and digits, every other run of characters one dash, at most 32;
// "mcp" when nothing is left.
func clientSlug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= 32 {
			break
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > 32 {
		out = strings.TrimRight(out[:32], "-")
	}
	if out == "" {
		return "mcp"
	}
	return out
}

// ServeStdio serves the tools to one client over in and out (a process's
// stdin and stdout) until the client goes (its end of either pipe closed)
// or ctx ends.
func ServeStdio(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	t := &sdk.IOTransport{Reader: nopReadCloser{in}, Writer: nopWriteCloser{out}}
	err := NewServer(cfg).Run(ctx, t)
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE) {
		return nil
	}
	return err
}

type nopReadCloser struct{ io.Reader }

func (nopReadCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
