package natsstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hall-dev/hall/internal/presence"
)

// Get reads one record by id from the server (never from the watched view:
// a beat seeds its state from here and must see the latest write).
func (s *Store) Get(ctx context.Context, id string) (presence.Record, error) {
	if err := checkID(id); err != nil {
		return presence.Record{}, err
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	kv, err := s.bucket(ctx)
	if err != nil {
		return presence.Record{}, err
	}
	e, err := kv.Get(ctx, id)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return presence.Record{}, presence.Errorf(presence.ENOTFOUND, "no presence %s", id)
	case err != nil:
		return presence.Record{}, s.unavailable(ctx, err, "get %s", id)
	}
	r, err := presence.DecodeRecord(e.Value())
	if err == nil && r.PresenceID != id {
		// As the view skips it: a value never speaks for another key.
		err = fmt.Errorf("the value holds presence_id %.40q", r.PresenceID)
	}
	if err != nil {
		return presence.Record{}, presence.Errorf(presence.EUNAVAILABLE, "read presence %s: %s", id, presence.ErrorMessage(err))
	}
	return r, nil
}

// Upsert writes the record under its id with compare-and-set on the key's
// revision. When another writer got there first (the revision moved), it
// re-reads, merges the two states (presence.Merge) and tries again, so a beat
// that lands on another Hall at the same moment is folded in, never
// overwritten. A write that would change nothing is skipped. The message
// carries the record's remaining life as its TTL, so the engine removes it
// (and tells watchers) once it went stale.
func (s *Store) Upsert(ctx context.Context, r presence.Record) error {
	if err := checkID(r.PresenceID); err != nil {
		return err
	}
	if _, err := encode(r); err != nil {
		return err
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	kv, err := s.bucket(ctx)
	if err != nil {
		return err
	}
	s.warnLongTTL(r)
	hint := true // the first attempt may take the current state from the view
	for range casAttempts {
		cur, err := s.current(ctx, kv, r.PresenceID, hint)
		hint = false
		if err != nil {
			return err
		}
		next := r
		if cur.ok {
			next = presence.Merge(cur.rec, r)
		}
		data, err := encode(next)
		if err != nil {
			return err
		}
		if cur.found && bytes.Equal(data, cur.data) {
			if cur.fromView {
				continue // the view may lag: confirm against the server
			}
			return nil // the bucket already holds exactly this
		}
		ttl := messageTTL(next, time.Now())
		var rev uint64
		var conflict bool
		if !cur.found {
			rev, err = kv.Create(ctx, r.PresenceID, data, jetstream.KeyTTL(ttl))
			conflict = errors.Is(err, jetstream.ErrKeyExists)
		} else {
			rev, err = s.update(ctx, r.PresenceID, data, cur.rev, ttl)
			conflict = isWrongLastSequence(err)
		}
		if conflict {
			continue
		}
		if err != nil {
			return s.unavailable(ctx, err, "upsert %s", r.PresenceID)
		}
		s.viewPut(r.PresenceID, rev, next)
		return nil
	}
	return presence.Errorf(presence.EUNAVAILABLE, "upsert %s: %d compare-and-set conflicts in a row", r.PresenceID, casAttempts)
}

// current is what the bucket holds under one key, as an upsert sees it.
type current struct {
	found bool            // a live value exists (delete markers do not count)
	ok    bool            // it decodes
	rev   uint64          // its revision
	rec   presence.Record // decoded, when ok
	data  []byte          // as stored
	// fromView marks a state taken from the watched view, which may lag.
	fromView bool
}

// current reads the key's latest value. With hint set it may answer from
// the watched view instead (saving a round trip on the common path); a
// stale hint costs one conflict and a re-read, never a lost write.
func (s *Store) current(ctx context.Context, kv jetstream.KeyValue, id string, hint bool) (current, error) {
	if hint {
		if c, ok := s.viewCurrent(id); ok {
			return c, nil
		}
	}
	e, err := kv.Get(ctx, id)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return current{}, nil
	case err != nil:
		return current{}, s.unavailable(ctx, err, "read %s before write", id)
	}
	c := current{found: true, rev: e.Revision(), data: e.Value()}
	if rec, err := presence.DecodeRecord(e.Value()); err == nil {
		c.ok, c.rec = true, rec
		// Compare against our own encoding, so a foreign writer's layout
		// of the same record is not taken for a change.
		c.data, _ = encode(rec)
	}
	return c, nil
}

// update publishes a new value for the key if its revision is still rev,
// with a per-message TTL. jetstream.KeyValue.Update takes no TTL, and
// KeyTTL only applies on Create, so this is Update with the TTL added: the
// same subject and the same expected-last-subject-sequence header.
func (s *Store) update(ctx context.Context, id string, data []byte, rev uint64, ttl time.Duration) (uint64, error) {
	msg := &nats.Msg{Subject: "$KV." + s.opts.Bucket + "." + id, Data: data}
	ack, err := s.js.PublishMsg(ctx, msg, jetstream.WithExpectLastSequencePerSubject(rev), jetstream.WithMsgTTL(ttl))
	if err != nil {
		return 0, err
	}
	return ack.Sequence, nil
}

// isWrongLastSequence reports a compare-and-set conflict. Replicated
// streams report it with another code than single ones.
func isWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) {
		return errors.Is(err, jetstream.ErrKeyRevisionMismatch)
	}
	return apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant
}

// Delete removes a record: a purge, whose marker tells watchers and then
// expires itself. ENOTFOUND when there is none.
func (s *Store) Delete(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	kv, err := s.bucket(ctx)
	if err != nil {
		return err
	}
	e, err := kv.Get(ctx, id)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return presence.Errorf(presence.ENOTFOUND, "no presence %s", id)
	case err != nil:
		return s.unavailable(ctx, err, "read %s before delete", id)
	}
	if err := kv.Purge(ctx, id, jetstream.PurgeTTL(markerTTL)); err != nil {
		return s.unavailable(ctx, err, "delete %s", id)
	}
	s.viewGone(id, e.Revision())
	return nil
}

// DeleteUnlessNewer removes the record only when nobody wrote a newer beat
// since lastBeatMs: the bucket's copy still has last_beat_ms <= lastBeatMs.
// A relay uses it to withdraw what it mirrored without removing the record
// another relay (another host, same agent and brain) keeps alive. It
// reports whether it removed anything; an absent or undecodable record is
// left alone and is no error.
func (s *Store) DeleteUnlessNewer(ctx context.Context, id string, lastBeatMs int64) (bool, error) {
	if err := checkID(id); err != nil {
		return false, err
	}
	ctx, cancel := s.opCtx(ctx)
	defer cancel()
	kv, err := s.bucket(ctx)
	if err != nil {
		return false, err
	}
	for range casAttempts {
		e, err := kv.Get(ctx, id)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
			return false, nil
		case err != nil:
			return false, s.unavailable(ctx, err, "read %s before delete", id)
		}
		r, err := presence.DecodeRecord(e.Value())
		if err != nil || r.LastBeatMs > lastBeatMs {
			return false, nil
		}
		err = kv.Purge(ctx, id, jetstream.LastRevision(e.Revision()), jetstream.PurgeTTL(markerTTL))
		if isWrongLastSequence(err) {
			continue // written meanwhile: look again
		}
		if err != nil {
			return false, s.unavailable(ctx, err, "delete %s", id)
		}
		s.viewGone(id, e.Revision())
		return true, nil
	}
	return false, presence.Errorf(presence.EUNAVAILABLE, "delete %s: %d compare-and-set conflicts in a row", id, casAttempts)
}

// messageTTL is the TTL of the message that carries r: its remaining life
// plus a grace, in whole seconds (the engine's unit), rounded up so the
// engine never removes a record the reader still calls live.
func messageTTL(r presence.Record, now time.Time) time.Duration {
	left := time.Duration(r.ExpiresAtMs()-now.UnixMilli()) * time.Millisecond
	left = max(left, 0) + expiryGrace
	return (left + time.Second - 1).Truncate(time.Second)
}

// warnLongTTL logs once when a record lives longer than the ttl this store
// was opened with: unless another Hall or relay raised the bucket's
// max-age further, the engine removes it at the max-age, before it goes
// stale.
func (s *Store) warnLongTTL(r presence.Record) {
	if r.TTL() <= s.opts.TTL {
		return
	}
	s.mu.Lock()
	warned := s.warnedTTL
	s.warnedTTL = true
	s.mu.Unlock()
	if !warned {
		s.log.Warn("a record's ttl is longer than --ttl; the bucket may expire it early: raise --ttl", "presence_id", r.PresenceID, "record_ttl", r.TTL(), "ttl", s.opts.TTL)
	}
}

func checkID(id string) error {
	return presence.CheckID(id)
}

func encode(r presence.Record) ([]byte, error) {
	data, err := presence.EncodeRecord(r)
	if err != nil {
		return nil, presence.Errorf(presence.EINVALID, "%s", presence.ErrorMessage(err))
	}
	if len(data) > presence.MaxRecordBytes {
		return nil, presence.Errorf(presence.ETOOLARGE, "presence %s is %d bytes, limit %d", r.PresenceID, len(data), presence.MaxRecordBytes)
	}
	return data, nil
}
