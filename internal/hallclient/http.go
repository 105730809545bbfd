package hallclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/autostart"
	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/web/httpwire"
)

// HTTP is a running Hall reached over HTTP. Every call ends with its
// context: give it a deadline, so a Hall that does not answer costs no
// more than that.
type HTTP struct {
	Base   string       // the Hall's base URL: http://127.0.0.1:7433
	Token  string       // sent as a bearer token when set (the Hall's --token)
	Client *http.Client // http.DefaultClient when nil
	// Start, when set, is called once a connection is refused (nothing
	// listens at Base): it starts a Hall there and returns nil once it
	// takes connections, and the call is sent again
	// (internal/autostart). Nil: a refused connection is an error.
	Start func(ctx context.Context) error
}

// maxAnswer bounds what is read of one answer; a roster of a few thousand
// presences stays far below it.
const maxAnswer = 16 << 20

// Beat posts the beat. A Hall that stored nothing answers 200 with stored
// false and the reason: that is a response, not an error.
func (h *HTTP) Beat(ctx context.Context, req contract.BeatRequest) (contract.BeatResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return contract.BeatResponse{}, fmt.Errorf("encode beat: %w", err)
	}
	var out contract.BeatResponse
	err = h.do(ctx, http.MethodPost, "/api/presences/beat", body, &out)
	return out, err
}

// Leave deletes the presence.
func (h *HTTP) Leave(ctx context.Context, presenceID string) error {
	return h.do(ctx, http.MethodDelete, "/api/presences/"+url.PathEscape(presenceID), nil, nil)
}

// Presences gets the contract.
func (h *HTTP) Presences(ctx context.Context, brain string) (contract.PresencesResponse, error) {
	var out contract.PresencesResponse
	err := h.do(ctx, http.MethodGet, "/api/presences"+query("brain", brain), nil, &out)
	return out, err
}

// North gets the presence's north lines.
func (h *HTTP) North(ctx context.Context, who contract.Who) (contract.NorthResponse, error) {
	q := url.Values{}
	for name, v := range map[string]string{"presence_id": who.PresenceID, "agent_id": who.AgentID, "brain": who.Brain} {
		if v != "" {
			q.Set(name, v)
		}
	}
	var out contract.NorthResponse
	err := h.do(ctx, http.MethodGet, "/api/north?"+q.Encode(), nil, &out)
	return out, err
}

// Check posts the work to check; the Hall writes nothing.
func (h *HTTP) Check(ctx context.Context, req contract.CheckRequest) (contract.CheckResponse, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return contract.CheckResponse{}, fmt.Errorf("encode check: %w", err)
	}
	var out contract.CheckResponse
	err = h.do(ctx, http.MethodPost, "/api/presences/check", body, &out)
	return out, err
}

// Cockpit gets the strip's text.
func (h *HTTP) Cockpit(ctx context.Context, brain string) (string, error) {
	var out []byte
	err := h.do(ctx, http.MethodGet, "/api/cockpit"+query("brain", brain), nil, &out)
	return string(out), err
}

// Snapshots gets the snapshots the Hall kept, and the losses found.
func (h *HTTP) Snapshots(ctx context.Context, worktree, agent string, limit int) (contract.SnapshotList, error) {
	q := url.Values{}
	if worktree != "" {
		q.Set("worktree", worktree)
	}
	if agent != "" {
		q.Set("agent", agent)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var out contract.SnapshotList
	err := h.do(ctx, http.MethodGet, "/api/snapshots?"+q.Encode(), nil, &out)
	return out, err
}

// SnapshotFiles gets one snapshot and how its files compare with the
// worktree now.
func (h *HTTP) SnapshotFiles(ctx context.Context, id string, paths []string) (contract.SnapshotDiff, error) {
	var out contract.SnapshotDiff
	err := h.do(ctx, http.MethodGet, "/api/snapshots/"+url.PathEscape(id)+"?"+url.Values{"path": paths}.Encode(), nil, &out)
	return out, err
}

// Watch follows the Hall's live stream, collisions only, and calls changed
// on each event (the snapshot of every connection included), reconnecting
// by itself, until ctx ends or the Hall refuses the stream.
func (h *HTTP) Watch(ctx context.Context, changed func()) {
	c := &stream.Client{URL: strings.TrimRight(h.Base, "/") + "/api/presences/stream?collisions_only=1", Token: h.Token}
	_ = c.Follow(ctx, func(stream.Event) error {
		changed()
		return nil
	})
}

func query(name, value string) string {
	if value == "" {
		return ""
	}
	return "?" + url.Values{name: {value}}.Encode()
}

// do sends one request and decodes the answer into out (*[]byte takes the
// body as it is). A non-2xx answer is a *contract.Error; so is a Hall
// that cannot be reached (hall_unreachable) or did not answer in time
// (hall_timeout), of kind unavailable: a condition foreseen, said to the
// caller (an MCP tool error names it), not an internal failure.
func (h *HTTP) do(ctx context.Context, method, path string, body []byte, out any) error {
	send := func() (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(h.Base, "/")+path, bytes.NewReader(body))
		if err != nil {
			return nil, &contract.Error{Kind: contract.KindInvalid, Code: "invalid_hall_url", Detail: fmt.Sprintf("--hall %q: %v", h.Base, err)}
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if h.Token != "" {
			req.Header.Set("Authorization", "Bearer "+h.Token)
		}
		client := h.Client
		if client == nil {
			client = http.DefaultClient
		}
		return client.Do(req)
	}
	resp, err := send()
	var ce *contract.Error
	if errors.As(err, &ce) {
		return ce
	}
	if err != nil && h.Start != nil && autostart.Refused(err) {
		if serr := h.Start(ctx); serr != nil {
			err = fmt.Errorf("%w; %v", err, serr)
		} else {
			resp, err = send()
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &contract.Error{Kind: contract.KindUnavailable, Code: "hall_timeout", Detail: fmt.Sprintf("the Hall at %s did not answer in time: %v", h.Base, err), Err: err}
	case err != nil:
		return &contract.Error{Kind: contract.KindUnavailable, Code: "hall_unreachable", Detail: fmt.Sprintf("the Hall at %s is unreachable: %v", h.Base, err), Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("read the Hall's answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		e := &contract.Error{Kind: httpwire.KindOf(resp.StatusCode), Status: resp.StatusCode}
		var eb contract.ErrorResponse
		if json.Unmarshal(data, &eb) == nil {
			e.Code, e.Detail = eb.Error, eb.Detail
		}
		if e.Code == "" {
			e.Code, e.Detail = "http_error", http.StatusText(resp.StatusCode)
		}
		if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
			e.RetryAfter = time.Duration(min(secs, 86400)) * time.Second // a day at most: a header is not trusted to overflow
		}
		return e
	}
	switch o := out.(type) {
	case nil:
	case *[]byte:
		*o = data
	default:
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("read the Hall's answer: %w", err)
		}
	}
	return nil
}
