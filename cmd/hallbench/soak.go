package main

import (
	"context"
	"errors"
)

// runSoak is filled in by the soak harness.
func runSoak(ctx context.Context, o options) error { return errors.New("soak: not built yet") }
