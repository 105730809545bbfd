package views

import (
	"time"

	"github.com/hall-dev/hall/internal/contract"
)

// AgeText is the age of an instant at servedAtMs, with its suffix, as a
// <time> shows it; "" when servedAtMs is 0: a fragment leaves ages to the
// page's script, which ticks them anyway, so a region that did not change
// renders the same bytes at every cursor.
func AgeText(servedAtMs, ms int64, suffix string) string {
	if servedAtMs == 0 {
		return ""
	}
	return contract.AgeMs(servedAtMs-ms) + suffix
}

// ISO is an epoch-millisecond instant as an RFC 3339 UTC string, for the
// datetime attribute of <time>.
func ISO(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

// OpenedLabel leads a collision's age: "open" when the Hall saw it open,
// "open ≥" when it was already open when the Hall first looked.
func OpenedLabel(o contract.Opened) string {
	if o.Seen {
		return "open "
	}
	return "open ≥ "
}

// OpenedTitle explains the age.
func OpenedTitle(o contract.Opened) string {
	if o.Seen {
		return "open since " + ISO(o.AtMs) + " (when the Hall saw it open)"
	}
	return "already open when the Hall first looked, at " + ISO(o.AtMs)
}
