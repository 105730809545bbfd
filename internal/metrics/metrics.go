// Package metrics serves the Hall's counters in the Prometheus text format
// (GET /metrics), with github.com/prometheus/client_golang on a registry of
// its own: no global default registry, so two Halls in one process (the
// tests) never share a counter.
//
// Most families are read at scrape time from what the service and the hub
// already count for /api/health (their Stats) and from the live roster the
// reads serve: nothing is added to the beat or stream paths for them. The
// two histograms need a measurement where the work happens: the hub and
// the service take a presence.Observer (FanoutTime, ListingTime,
// RereadTime) and call it once per diff, listing or reread.
//
// No family has a per-brain, per-agent or per-presence label: their number
// grows with what agents send. The only labels are fixed sets (the store's
// read kind, the store kind). docs/metrics.md documents each family;
// TestMetricsDocumented (cmd/hall) keeps the two in step.
package metrics

import (
	"github.com/hall-dev/hall/internal/peershare"

	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/recovery"
	"github.com/hall-dev/hall/internal/remotewatch"
	"github.com/hall-dev/hall/internal/stream"
)

// Namespace prefixes every family of the Hall's own.
const Namespace = "hall"

// durationBuckets spans 50 µs to 5 s: a reread of one file to a listing of
// a large, slow store.
var durationBuckets = prometheus.ExponentialBucketsRange(50e-6, 5, 12)

// Metrics is one Hall's registry: the histograms the service and the hub
// observe into, and, once Watch is called, the counters they keep.
type Metrics struct {
	reg *prometheus.Registry
	// runtime registers the Go runtime and process collectors, once, on
	// the first scrape: they read everything at scrape time and keep no
	// state, so the first scrape lists the same families as if they had
	// been there from the start, and a Hall nobody scrapes never builds
	// them (building them compiles and runs the Go collector's regexps:
	// about 80 KB of an idle Hall's private memory).
	runtime func()

	// FanoutTime takes the time each diff took to fan out (stream.Config).
	FanoutTime prometheus.Histogram
	// ListingTime and RereadTime take the time each whole listing of the
	// store, and each reread of named entries, took (presence.Config).
	ListingTime, RereadTime prometheus.Observer
}

// New returns a registry holding the Hall's histograms, and the Go runtime
// and process collectors from the first scrape on. Hand the histograms to
// the service and the hub, then call Watch with them.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	fanout := prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "stream", Name: "fanout_duration_seconds",
		Help:    "Time to fan one diff out: encoded once per filter and queued on every subscriber.",
		Buckets: durationBuckets,
	})
	reads := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Subsystem: "store", Name: "read_duration_seconds",
		Help:    "Time to bring the roster up to date from the store: read=listing for a whole listing (rescan), read=reread for the entries a watch named.",
		Buckets: durationBuckets,
	}, []string{"read"})
	reg.MustRegister(fanout, reads)
	return &Metrics{
		reg: reg,
		runtime: sync.OnceFunc(func() {
			reg.MustRegister(
				collectors.NewGoCollector(),
				collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
			)
		}),
		FanoutTime:  fanout,
		ListingTime: reads.WithLabelValues("listing"),
		RereadTime:  reads.WithLabelValues("reread"),
	}
}

// ServiceStats is what the presence service counts (*presence.Service).
type ServiceStats interface {
	Stats() presence.Stats
}

// StreamStats is what the live stream counts (*stream.Hub).
type StreamStats interface {
	Stats() stream.Stats
}

// Roster is the live roster the reads serve (*stream.Hub).
type Roster interface {
	Snapshot(ctx context.Context) (presence.Snapshot, error)
}

// GitScanStats is what the worktree scanner counts (*gitscan.Scanner).
type GitScanStats interface {
	Stats() gitscan.Stats
}

// RemoteStats is what the watch of pushed work counts
// (*remotewatch.Watcher).
type RemoteStats interface {
	Stats() remotewatch.Stats
}

// RecoveryStats is what the Hall counts of its snapshots on the hook
// path (*hall.Hall).
type RecoveryStats interface {
	RecoveryStats() recovery.HookStats
}

// Sources are what Watch reads at each scrape. A nil source leaves its
// families out.
type Sources struct {
	Service   ServiceStats
	Stream    StreamStats
	Roster    Roster
	GitScan   GitScanStats  // nil while the Hall runs no scanner
	Remotes   RemoteStats   // nil while the Hall watches no remote (--remote-interval 0)
	Recovery  RecoveryStats // nil while the Hall keeps no snapshots
	Peers     PeerStats     // nil while the Hall shares nothing with other hosts
	StoreKind string        // "dir" or "nats"
}

// PeerStats is what the Hall counts of what it shares with Halls on
// other hosts (*peershare.Sharer).
type PeerStats interface {
	Stats() peershare.Stats
}

// Watch registers the families read from src at scrape time.
func (m *Metrics) Watch(src Sources) {
	m.reg.MustRegister(newStatsCollector(src))
}

// Handler serves the registry in the Prometheus text format. A family
// that fails to collect is left out and logged; the rest are served.
func (m *Metrics) Handler(log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slogLogger{log},
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.reg, // counts its own scrapes: promhttp_metric_handler_errors_total
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.runtime()
		h.ServeHTTP(w, r)
	})
}

type slogLogger struct{ log *slog.Logger }

func (l slogLogger) Println(v ...any) { l.log.Warn("metrics", "err", v) }

// rosterTimeout bounds the roster read of one scrape. The roster is the
// cached one the reads serve, so it takes microseconds unless the store
// must be listed.
const rosterTimeout = 5 * time.Second
