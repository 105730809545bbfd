package httpwire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// TestKindOfReadsTheTableBack: a client reading a refusal's status gets
// the kind the Hall wrote it from, for every kind; a status the table does
// not hold is invalid as a 4xx, internal otherwise.
func TestKindOfReadsTheTableBack(t *testing.T) {
	for k := range statuses {
		if got := KindOf(StatusOf(contract.Kind(k))); got != contract.Kind(k) {
			t.Errorf("kind %d: written %d, read back as %d", k, StatusOf(contract.Kind(k)), got)
		}
	}
	for status, want := range map[int]contract.Kind{http.StatusTeapot: contract.KindInvalid, http.StatusBadGateway: contract.KindInternal, http.StatusFound: contract.KindInternal} {
		if got := KindOf(status); got != want {
			t.Errorf("KindOf(%d) = %d, want %d", status, got, want)
		}
	}
	if (&contract.Error{Kind: contract.KindNotFound}).BadInput() || !(&contract.Error{Kind: contract.KindRateLimited}).BadInput() || (&contract.Error{Kind: contract.KindUnavailable}).BadInput() {
		t.Error("BadInput: want every 4xx kind but not found, and no 5xx kind")
	}
}

// TestRefusal: what the wire says of each kind of failure, through the one
// writer every transport uses.
func TestRefusal(t *testing.T) {
	const internalDetail = "the Hall failed to answer; its log says why" // contract.Refusal's
	secret := errors.New("open /home/ana/.hall/registry/prs_0123456789ab.json: input/output error")
	for _, tc := range []struct {
		name     string
		err      error
		status   int
		code     string
		detail   string
		internal bool
	}{
		{"a refusal as it is", contract.Refuse(contract.KindMisdirected, "host_not_allowed", "not %q", "evil.example"), 421, "host_not_allowed", `not "evil.example"`, false},
		{"a wrapped refusal", fmt.Errorf("north: %w", contract.Refuse(contract.KindNotFound, "unknown_brain", "no")), 404, "unknown_brain", "no", false},
		{"a domain error under its kind", presence.Errorf(presence.EBUSY, "out of file descriptors"), 503, presence.EBUSY, "out of file descriptors", false},
		{"a domain error renamed", contract.FromDomain(presence.Errorf(presence.EINVALID, "bad"), "invalid_presence_id"), 400, "invalid_presence_id", "bad", false},
		{"anything else is internal, its text kept out", fmt.Errorf("read record: %w", secret), 500, presence.EINTERNAL, internalDetail, true},
		{"a domain EINTERNAL too", presence.Errorf(presence.EINTERNAL, "%v", secret), 500, presence.EINTERNAL, internalDetail, true},
		{"FromDomain keeps a foreign error for the writer to log", contract.FromDomain(secret, "whatever"), 500, presence.EINTERNAL, internalDetail, true},
		{"a beat too large", contract.BeatError(presence.Errorf(presence.ETOOLARGE, "theme is over 200 bytes")), 400, "field_too_large", "theme is over 200 bytes", false},
		{"a leave out of reach", contract.LeaveError(presence.Errorf(presence.EUNREACHABLE, "nats: timeout")), 503, presence.EUNAVAILABLE, "nats: timeout", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, internal := contract.Refusal(tc.err)
			if StatusOf(e.Kind) != tc.status || e.Code != tc.code || e.Detail != tc.detail || internal != tc.internal {
				t.Errorf("got %d %s %q internal=%v, want %d %s %q internal=%v", StatusOf(e.Kind), e.Code, e.Detail, internal, tc.status, tc.code, tc.detail, tc.internal)
			}

			var logged bytes.Buffer
			rec := httptest.NewRecorder()
			WriteError(rec, slog.New(slog.NewTextHandler(&logged, nil)), tc.err)
			var body contract.ErrorResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != tc.status || body.Error != tc.code || body.Detail != tc.detail {
				t.Errorf("written: %d %s (%v), want %d {%s %q}", rec.Code, rec.Body.Bytes(), err, tc.status, tc.code, tc.detail)
			}
			if strings.Contains(rec.Body.String(), "input/output error") {
				t.Errorf("the cause reached the client: %s", rec.Body.Bytes())
			}
			if n := strings.Count(logged.String(), "request failed"); n != map[bool]int{true: 1}[tc.internal] {
				t.Errorf("logged %d times, want once for an internal failure and never otherwise:\n%s", n, logged.String())
			}
			if tc.internal && !strings.Contains(logged.String(), "input/output error") {
				t.Errorf("the log lost the cause: %s", logged.String())
			}
		})
	}
}
