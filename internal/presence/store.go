package presence

import "context"

// Store keeps presence records. The sidecar directory (internal/dirstore) is the
// embedded default; a distributed backend sits beside it behind the same
// interface. A Store returns every record it holds, stale ones included:
// staleness is filtered at read, by the caller, against its own clock.
type Store interface {
	// List returns every record that decodes, and how many entries were
	// skipped because they did not (foreign, corrupt or incomplete files).
	List(ctx context.Context) (Listing, error)
	// Get returns one record, or an ENOTFOUND error.
	Get(ctx context.Context, id string) (Record, error)
	// Upsert writes the record under its presence id, atomically: a reader
	// sees the old record or the new one, never half of either.
	Upsert(ctx context.Context, r Record) error
	// Delete removes a record; ENOTFOUND when there is none.
	Delete(ctx context.Context, id string) error
}

// Listing is what one List call saw.
type Listing struct {
	Records []Record
	Skipped int // entries that looked like records but did not decode
	// Repaired counts the records listed that DecodeRecordRepaired brought
	// inside the published contract (a foreign writer's).
	Repaired int
}

// Reclaimer is a Store that can reclaim what dead sessions left behind: stale
// records and leftover temp files. The Hall calls it once at boot.
type Reclaimer interface {
	Reclaim(ctx context.Context, now int64) (ReclaimReport, error)
}

// ReclaimReport counts what a reclaim removed.
type ReclaimReport struct {
	StaleRecords int
	TempFiles    int
}

// LapseRemover is a Store whose lapsed records stay until someone removes
// them (the sidecar folder), and that can remove one on condition that
// nobody wrote a newer beat: the live loop reclaims lapsed records with it
// while the Hall runs, and a record rewritten between the look and the
// removal is never the one removed. A store whose engine expires records
// by itself (NATS, per-message TTLs) is none.
type LapseRemover interface {
	// RemoveLapsed removes id's record only while the stored copy has
	// last_beat_ms <= lastBeatMs, and reports whether it removed it. An
	// absent or undecodable record is left alone and is no error.
	RemoveLapsed(ctx context.Context, id string, lastBeatMs int64) (bool, error)
}
