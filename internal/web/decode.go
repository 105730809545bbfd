package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/hall-dev/hall/internal/contract"
)

// decodeBody reads a request's body as exactly one JSON value of the
// fields into knows, read no further than max bytes: past max, 413
// body_too_large; anything else that is not that (not JSON, a field
// into does not know, a value of the wrong type, more than one value,
// nothing), 400 malformed_json, its detail naming what (a "beat", a
// "check") and why. The beat and the check read their bodies so, alike.
func decodeBody(w http.ResponseWriter, r *http.Request, max int64, what string, into any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, max))
	dec.DisallowUnknownFields()
	err := dec.Decode(into)
	if err == nil {
		if _, err = dec.Token(); errors.Is(err, io.EOF) {
			return nil
		} else if err == nil {
			err = errors.New("the body holds more than one JSON value")
		}
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return contract.Refuse(contract.KindTooLarge, "body_too_large", "the body is over %d bytes", max)
	}
	return contract.Refuse(contract.KindInvalid, "malformed_json", "%v", fmt.Errorf("decode %s: %w", what, err))
}
