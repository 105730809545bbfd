package main

import (
	"io"
	"log/slog"

	"github.com/hall-dev/hall/internal/lograte"
)

// newLogger is the log of a long-running command (serve, relay): text on
// stderr at level, each kind of warning or error at most once per
// lograte.DefaultEvery with a count of the rest, so a lasting fault (a
// full disk, a registry gone) writes a line per interval, not per presence
// per second. The returned flush writes the last interval's counts: call it
// as the command ends.
func newLogger(stderr io.Writer, level slog.Leveler) (*slog.Logger, func()) {
	h := lograte.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}), lograte.DefaultEvery)
	return slog.New(h), h.Flush
}
