package mcp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/hallclient"
)

// The live rosters: hall://presences is every brain's, and
// hall://presences/abs/path/of/brain one brain's. Each reads as the
// presences tool's structured answer (JSON, within the same budget). A
// client that subscribes to one is sent notifications/resources/updated
// whenever that roster's collisions change (one opens, closes, or changes
// its clauses, place or paths; the registry becomes unreadable or readable
// again), and reads it again to see how.
const (
	rosterURI = "hall://presences"
	// maxWatched bounds the distinct rosters subscribed to at once, over
	// every session: each costs one roster read per change.
	maxWatched = 64
	// maxSubsPerSession bounds one session's subscriptions, so one client
	// cannot take every watched roster.
	maxSubsPerSession = 8
	// codeLimit is the JSON-RPC error code of a request refused because a
	// bound of the Hall's is reached: the range -32000 to -32099 is the
	// server's own.
	codeLimit = -32000
)

// limitError is a request refused at one of the Hall's bounds.
func limitError(msg string) error { return &jsonrpc.Error{Code: codeLimit, Message: msg} }

// paramsError is a request whose parameters cannot be served.
func paramsError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}

func (s *server) addResources(srv *sdk.Server) {
	desc := "The live roster, compact, as the presences tool answers it. Subscribe to be told when its collisions change."
	srv.AddResource(&sdk.Resource{URI: rosterURI, Name: "presences", Title: "Every brain's roster", MIMEType: "application/json",
		Description: desc}, s.readRoster)
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: rosterURI + "{+brain}", Name: "presences-of-brain",
		Title: "One brain's roster", MIMEType: "application/json",
		Description: desc + " The brain is the URI's path: hall://presences/home/ana/shop."}, s.readRoster)
}

// brainOf is the brain a roster URI names: "" for every brain.
func brainOf(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, rosterURI)
	if !ok {
		return "", fmt.Errorf("%s is not a roster of the Hall (%s[/brain])", uri, rosterURI)
	}
	if rest == "" {
		return "", nil
	}
	brain, err := url.PathUnescape(rest)
	if err != nil || !filepath.IsAbs(brain) {
		return "", fmt.Errorf("%s: the brain must be an absolute path after %s", uri, rosterURI)
	}
	return brain, nil
}

func (s *server) readRoster(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	uri := req.Params.URI
	brain, err := brainOf(uri)
	if err != nil {
		return nil, paramsError(err)
	}
	resp, err := s.cfg.Client.Presences(ctx, brain)
	switch {
	case contract.IsNotFound(err):
		return nil, sdk.ResourceNotFoundError(uri)
	case err != nil:
		return nil, err
	}
	out, _ := renderPresences(resp)
	raw, err := encode(out)
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(raw)}}}, nil
}

// live watches the subscribed rosters while any is subscribed to.
type live struct {
	mu     sync.Mutex
	cancel context.CancelFunc // the running watch; nil when none runs
	last   map[string]string  // uri → its collisions at the last look
}

func (s *server) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	brain, err := brainOf(uri)
	if err != nil {
		return paramsError(err)
	}
	if brain != "" && !s.knownBrain(ctx, brain) {
		return sdk.ResourceNotFoundError(uri)
	}
	if err := s.sessions.subscribe(req.Session, uri, maxWatched, maxSubsPerSession); err != nil {
		return err
	}
	s.live.mu.Lock()
	_, known := s.live.last[uri]
	s.live.mu.Unlock()
	if !known {
		key := s.collisionsKey(ctx, uri) // what later changes are measured from
		s.live.mu.Lock()
		if _, known := s.live.last[uri]; !known {
			if s.live.last == nil {
				s.live.last = map[string]string{}
			}
			s.live.last[uri] = key
		}
		s.live.mu.Unlock()
	}
	s.watchWhileSubscribed()
	return nil
}

// knownBrain reports whether the Hall knows brain (configured, or named by
// a stored record): a roster that cannot exist takes no watch slot. A
// Hall that cannot answer now is taken at its word later: the roster
// reads as the outage until the store is back.
func (s *server) knownBrain(ctx context.Context, brain string) bool {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	_, err := s.cfg.Client.Presences(ctx, brain)
	return !contract.IsNotFound(err)
}

func (s *server) unsubscribe(_ context.Context, req *sdk.UnsubscribeRequest) error {
	s.sessions.unsubscribe(req.Session, req.Params.URI)
	s.watchWhileSubscribed()
	return nil
}

// watchWhileSubscribed starts the watch when a roster is subscribed to and
// none runs, and stops it when none is left (unsubscribed, or its sessions
// gone).
func (s *server) watchWhileSubscribed() {
	w, ok := s.cfg.Client.(hallclient.Watcher)
	if !ok {
		return
	}
	subscribed := len(s.sessions.subscribed()) > 0
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	switch {
	case subscribed && s.live.cancel == nil:
		ctx, cancel := context.WithCancel(context.Background())
		s.live.cancel = cancel
		go s.watch(ctx, w)
	case !subscribed && s.live.cancel != nil:
		s.live.cancel()
		s.live.cancel, s.live.last = nil, nil
	}
}

// watch looks at every subscribed roster after each change the Hall
// signals, and notifies the subscribers of those whose collisions changed.
// Signals that come while it looks are gathered into one more look.
func (s *server) watch(ctx context.Context, w hallclient.Watcher) {
	kick := make(chan struct{}, 1)
	go w.Watch(ctx, func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	})
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
		}
		uris := s.sessions.subscribed()
		for _, uri := range uris {
			key := s.collisionsKey(ctx, uri)
			s.live.mu.Lock()
			last, known := s.live.last[uri]
			if s.live.last != nil {
				s.live.last[uri] = key
			}
			s.live.mu.Unlock()
			if known && key != last && ctx.Err() == nil {
				_ = s.srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: uri})
			}
		}
		s.forgetUnsubscribed()
	}
}

// forgetUnsubscribed drops the last look at each roster no session
// subscribes to any more. It asks the sessions now, under the lock, not
// the list the look began with: a roster subscribed to while the look ran
// keeps the baseline its subscribe set, or its first change would find no
// baseline and go unannounced.
func (s *server) forgetUnsubscribed() {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	now := s.sessions.subscribed()
	for uri := range s.live.last {
		if !contains(now, uri) {
			delete(s.live.last, uri)
		}
	}
}

// collisionsKey sums up a roster's collisions: their count (the listed
// ones are bounded: a pair beyond the bound changes the count alone), and
// the ids, clauses, places and paths of those listed in the contract's
// order, or why the roster cannot be read.
func (s *server) collisionsKey(ctx context.Context, uri string) string {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	brain, _ := brainOf(uri)
	resp, err := s.cfg.Client.Presences(ctx, brain)
	if err != nil {
		return "error: " + err.Error()
	}
	if resp.Error != "" {
		return "error: " + resp.Error
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", resp.CollisionsTotal)
	for _, c := range resp.Collisions {
		fmt.Fprintf(&b, "%s|%s|%s|%s\n", c.CollisionID, strings.Join(c.Clauses, ","), c.Place, strings.Join(c.Paths, ","))
	}
	return b.String()
}

// contains reports whether the sorted xs holds x.
func contains(xs []string, x string) bool {
	_, ok := slices.BinarySearch(xs, x)
	return ok
}
