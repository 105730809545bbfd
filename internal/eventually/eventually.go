// Package eventually is how tests wait for what eventually happens: a
// condition polled until it holds, or looked at as notifications arrive.
// The bound each call is given is generous for a loaded 2-core machine
// under -race and never a measure of speed: a passing test never waits it
// out, and a test never asserts on how long it waited.
package eventually

import (
	"testing"
	"time"
)

// poll is how often True looks again.
const poll = 10 * time.Millisecond

// True polls cond until it holds, failing tb once within has passed.
func True(tb testing.TB, within time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(poll)
	}
}

// Notified waits for notifications on ch until, after one of them, cond
// holds. The notification is part of what it proves: cond is not looked
// at before the first. What a notification carries is not looked at.
func Notified[T any](tb testing.TB, within time.Duration, ch <-chan T, what string, cond func() bool) {
	tb.Helper()
	deadline := time.After(within)
	for {
		select {
		case <-ch:
			if cond() {
				return
			}
		case <-deadline:
			tb.Fatalf("no notification showing %s within %s", what, within)
		}
	}
}

// TrueOnNotify looks at cond now and after each notification on ch, until
// it holds.
func TrueOnNotify[T any](tb testing.TB, within time.Duration, ch <-chan T, what string, cond func() bool) {
	tb.Helper()
	deadline := time.After(within)
	for !cond() {
		select {
		case <-ch:
		case <-deadline:
			tb.Fatalf("timed out after %s waiting for %s", within, what)
		}
	}
}
