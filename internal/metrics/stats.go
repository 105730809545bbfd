package metrics

import (
	"github.com/hall-dev/hall/internal/peershare"

	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/recovery"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// family is one metric read from the sources at scrape time.
type family struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(s *scrape) (float64, bool) // false: not served this scrape
}

// scrape is what one Collect read, each source once.
type scrape struct {
	svc      presenceStats
	stream   streamStats
	hasStr   bool
	hasRos   bool
	live     int
	colls    int
	ovls     int // overlapping pairs, every brain
	confl    int // of them, listed ones git predicts conflict
	clones   int // of them, listed ones across two clones on this machine
	pushed   int // of them, listed ones across pushed (a branch on the remote)
	skip     int
	repaired int
	rosErr   bool
	git      gitscan.Stats
	hasGit   bool
	rec      recovery.HookStats
	hasRec   bool
	remote   remotewatch.Stats
	hasRem   bool
	peers    peershare.Stats
	hasPeers bool
}

type presenceStats struct{ beats, writes, writeErrors, throttled, listingErrors, busyReads int64 }

type streamStats struct {
	subscribers                             int
	subscribed, dropped, resumed, snapshots int64
	refused                                 int64
	diffs                                   uint64
}

// statsCollector serves the counters the service and the hub keep, and
// the live roster's size, read when scraped: a Prometheus collector over
// existing state, adding nothing to the paths that keep it.
type statsCollector struct {
	src      Sources
	families []family
	store    *prometheus.Desc
	notSaved *prometheus.Desc // by reason, a fixed set (recovery.Reasons)
}

func newStatsCollector(src Sources) *statsCollector {
	c := &statsCollector{src: src}
	add := func(subsystem, name, help string, kind prometheus.ValueType, value func(*scrape) (float64, bool)) {
		c.families = append(c.families, family{
			desc: prometheus.NewDesc(prometheus.BuildFQName(Namespace, subsystem, name), help, nil, nil),
			kind: kind, value: value,
		})
	}
	always := func(f func(*scrape) float64) func(*scrape) (float64, bool) {
		return func(s *scrape) (float64, bool) { return f(s), true }
	}
	onStream := func(f func(*scrape) float64) func(*scrape) (float64, bool) {
		return func(s *scrape) (float64, bool) { return f(s), s.hasStr }
	}
	onRoster := func(f func(*scrape) float64) func(*scrape) (float64, bool) {
		return func(s *scrape) (float64, bool) { return f(s), s.hasRos && !s.rosErr }
	}
	onGit := func(f func(*scrape) float64) func(*scrape) (float64, bool) {
		return func(s *scrape) (float64, bool) { return f(s), s.hasGit }
	}
	counter, gauge := prometheus.CounterValue, prometheus.GaugeValue
	onPeers := func(f func(*scrape) float64) func(*scrape) (float64, bool) {
		return func(s *scrape) (float64, bool) { return f(s), s.hasPeers }
	}
	add("peers", "bytes_shipped_total", "Bytes of file content this Hall published for Halls on other hosts (--share-changes=content; docs/nats.md).", counter,
		onPeers(func(s *scrape) float64 { return float64(s.peers.BytesShipped) }))
	add("peers", "blobs_shipped_total", "File contents (blobs) this Hall published for Halls on other hosts.", counter,
		onPeers(func(s *scrape) float64 { return float64(s.peers.BlobsShipped) }))
	add("peers", "files_left_out_total", "Files of overlaps across hosts not shipped: past a bound (per overlap, per repository, in total), or not a file.", counter,
		onPeers(func(s *scrape) float64 { return float64(s.peers.FilesLeftOut) }))
	add("peers", "pairs_left_out_total", "Overlaps across hosts left out of a round past its bound of pairs.", counter,
		onPeers(func(s *scrape) float64 { return float64(s.peers.PairsLeftOut) }))
	add("peers", "verdicts_shared_total", "Merge verdicts across hosts this Hall's git predicted and published.", counter,
		onPeers(func(s *scrape) float64 { return float64(s.peers.VerdictsShared) }))
	add("peers", "verdicts_read_total", "Merge verdicts across hosts read from another host's Hall.", counter,
		onPeers(func(s *scrape) float64 { return float64(s.peers.VerdictsRead) }))
	add("peers", "board_failures_total", "Publishes and reads of the shared bucket that failed (NATS gone or slow).", counter,
		onPeers(func(s *scrape) float64 { return float64(s.peers.BoardFailures) }))
	add("peers", "base_not_here_total", "Merges across hosts not predicted: the other side's base commit is neither among this repository's objects nor fetched from its remote into the Hall's store.", counter,
		onPeers(func(s *scrape) float64 { return float64(s.peers.PredictionsBaseNotHere) }))
	onRecovery := func(f func(*scrape) float64) func(*scrape) (float64, bool) {
		return func(s *scrape) (float64, bool) { return f(s), s.hasRec }
	}

	add("", "beats_total", "Beats taken (POST /api/presences/beat and hall beat), stored or not.", counter,
		always(func(s *scrape) float64 { return float64(s.svc.beats) }))
	add("", "beats_throttled_total", "Beats held in memory by the write throttle (written within the window).", counter,
		always(func(s *scrape) float64 { return float64(s.svc.throttled) }))
	add("store", "writes_total", "Records written to the store.", counter,
		always(func(s *scrape) float64 { return float64(s.svc.writes) }))
	add("store", "write_errors_total", "Store writes that failed (the beat still answered 200, stored false).", counter,
		always(func(s *scrape) float64 { return float64(s.svc.writeErrors) }))
	add("store", "listing_errors_total", "Whole listings of the store that failed: the roster was dropped (registry_unreadable).", counter,
		always(func(s *scrape) float64 { return float64(s.svc.listingErrors) }))
	add("store", "busy_reads_total", "Reads of the store refused for a moment (out of file descriptors): the last good roster was kept and the read retried.", counter,
		always(func(s *scrape) float64 { return float64(s.svc.busyReads) }))
	add("", "registry_unreadable", "1 while the store cannot be read and the roster is dropped whole, else 0.", gauge,
		func(s *scrape) (float64, bool) {
			if s.rosErr {
				return 1, s.hasRos
			}
			return 0, s.hasRos
		})
	add("", "presences_live", "Live presences, every brain.", gauge,
		onRoster(func(s *scrape) float64 { return float64(s.live) }))
	add("", "collisions_open", "Open collisions, every brain.", gauge,
		onRoster(func(s *scrape) float64 { return float64(s.colls) }))
	add("", "overlaps_open", "Open overlaps (two worktrees changed the same files), every brain.", gauge,
		onRoster(func(s *scrape) float64 { return float64(s.ovls) }))
	add("", "overlap_conflicts_open", "Listed open overlaps whose merge git predicts will conflict, every brain.", gauge,
		onRoster(func(s *scrape) float64 { return float64(s.confl) }))
	add("", "overlaps_across_clones_open", "Listed open overlaps between two clones of one repository on this machine (across clone), every brain.", gauge,
		onRoster(func(s *scrape) float64 { return float64(s.clones) }))
	add("", "overlaps_pushed_open", "Listed open overlaps with a branch pushed to the remote a worktree fetches from (across pushed), every brain.", gauge,
		onRoster(func(s *scrape) float64 { return float64(s.pushed) }))
	onRemote := func(f func(s *scrape) float64) func(s *scrape) (float64, bool) {
		return func(s *scrape) (float64, bool) { return f(s), s.hasRem }
	}
	add("remotewatch", "remotes", "Remotes the watch of pushed work looks at now.", gauge,
		onRemote(func(s *scrape) float64 { return float64(s.remote.Remotes) }))
	add("remotewatch", "failing", "Watched remotes whose last look failed (unreachable, credentials refused, timed out).", gauge,
		onRemote(func(s *scrape) float64 { return float64(s.remote.Failing) }))
	add("remotewatch", "looks_total", "Looks at a remote (one git ls-remote --heads each).", counter,
		onRemote(func(s *scrape) float64 { return float64(s.remote.Looks) }))
	add("remotewatch", "fetches_total", "Fetches into the watch's store: a look found a tip moved.", counter,
		onRemote(func(s *scrape) float64 { return float64(s.remote.Fetches) }))
	add("remotewatch", "failures_total", "Looks that failed.", counter,
		onRemote(func(s *scrape) float64 { return float64(s.remote.Failures) }))
	add("remotewatch", "shared_total", "Looks answered by another Hall's look on the same NATS store (no git ls-remote run here).", counter,
		onRemote(func(s *scrape) float64 { return float64(s.remote.Shared) }))
	add("store", "skipped_entries", "Store entries (files) that did not decode as a record at the last read.", gauge,
		onRoster(func(s *scrape) float64 { return float64(s.skip) }))
	add("store", "repaired_records", "Store records served after repair at the last read: a foreign writer's fields brought inside the published contract (a negative count zeroed, a relative path dropped, first_seen_ms after last_beat_ms clamped).", gauge,
		onRoster(func(s *scrape) float64 { return float64(s.repaired) }))
	add("stream", "subscribers", "Live stream subscribers open now.", gauge,
		onStream(func(s *scrape) float64 { return float64(s.stream.subscribers) }))
	add("stream", "subscriptions_total", "Live streams opened.", counter,
		onStream(func(s *scrape) float64 { return float64(s.stream.subscribed) }))
	add("stream", "dropped_total", "Subscribers cut off for falling behind (their clients resume).", counter,
		onStream(func(s *scrape) float64 { return float64(s.stream.dropped) }))
	add("stream", "refused_total", "Streams refused with 503 too_many_streams: --max-streams were open.", counter,
		onStream(func(s *scrape) float64 { return float64(s.stream.refused) }))
	add("stream", "resumed_total", "Reconnects served the missed diffs from the history.", counter,
		onStream(func(s *scrape) float64 { return float64(s.stream.resumed) }))
	add("stream", "snapshots_total", "Connects served a snapshot.", counter,
		onStream(func(s *scrape) float64 { return float64(s.stream.snapshots) }))
	add("stream", "diffs_total", "Diffs emitted, each sent to every subscriber whose filter keeps any of it.", counter,
		onStream(func(s *scrape) float64 { return float64(s.stream.diffs) }))
	add("gitscan", "tracked", "Worktrees the git scanner tracks now.", gauge,
		onGit(func(s *scrape) float64 { return float64(s.git.Tracked) }))
	add("gitscan", "scans_total", "Scans of a worktree's changes run (git status and diff against its base).", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.Scans) }))
	add("gitscan", "scoped_scans_total", "Scans asked over the files the worktree's presences reported changing rather than the whole worktree (one whose last answer no longer stands, HEAD moved say, reads the whole worktree all the same).", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.ScopedScans) }))
	add("gitscan", "scan_failures_total", "Scans git could not answer (a timeout, git failing); the presences fall back to observed files.", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.ScanFailures) }))
	add("gitscan", "scans_skipped_total", "Scans not run: no usable git, the worktree not on this machine, or over the tracked bound.", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.ScansSkipped) }))
	add("gitscan", "scan_seconds_total", "Time spent in scans.", counter,
		onGit(func(s *scrape) float64 { return s.git.ScanTime.Seconds() }))
	add("gitscan", "timeouts_total", "Scans, snapshots and merge checks whose git ran out of time and was killed.", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.Timeouts) }))
	add("gitscan", "snapshots_total", "Working-tree snapshots taken (through a temporary copy of the index).", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.Snapshots) }))
	add("gitscan", "snapshot_failures_total", "Working-tree snapshots that failed.", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.SnapshotFailures) }))
	add("gitscan", "merge_checks_total", "Merges predicted by git merge-tree, for pairs of worktrees that overlap by path.", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.MergeChecks) }))
	add("gitscan", "merge_failures_total", "Merge predictions that failed.", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.MergeFailures) }))
	add("gitscan", "merge_cache_hits_total", "Merge predictions answered from the cache (the same two snapshots merged before).", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.MergeCacheHits) }))
	add("gitscan", "merge_seconds_total", "Time spent predicting merges.", counter,
		onGit(func(s *scrape) float64 { return s.git.MergeTime.Seconds() }))
	add("gitscan", "processes_total", "Git processes started by the scanner (scans, snapshots, merge predictions).", counter,
		onGit(func(s *scrape) float64 { return float64(s.git.Processes) }))
	add("recovery", "hook_snapshots_total", "Snapshots a hook answer saved before a command that can lose uncommitted work (docs/recovery.md).", counter,
		onRecovery(func(s *scrape) float64 { return float64(s.rec.Saved) }))
	add("recovery", "hook_snapshots_not_saved_total", "Snapshots a hook answer could not save before such a command (git failed, or past the budget): the answer said \"not saved\".", counter,
		onRecovery(func(s *scrape) float64 { return float64(s.rec.NotSaved) }))
	add("recovery", "losses_total", "Uncommitted work found changed or gone after a command the Hall snapshot first, one per owner and snapshot.", counter,
		onRecovery(func(s *scrape) float64 { return float64(s.rec.Losses) }))
	c.store = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "store", "info"), "The store this Hall reads and writes: kind is dir or nats. Always 1.", []string{"kind"}, nil)
	c.notSaved = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "recovery", "hook_snapshots_not_saved_by_reason_total"),
		"hook_snapshots_not_saved_total by why: too_many_files, too_large, over_max_bytes, git_timeout, git_failed (docs/recovery.md).", []string{"reason"}, nil)
	return c
}

// Describe sends every family's description.
func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range c.families {
		ch <- f.desc
	}
	ch <- c.store
	ch <- c.notSaved
}

// Collect reads each source once and sends every family.
func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	s := &scrape{}
	if c.src.Service != nil {
		st := c.src.Service.Stats()
		s.svc = presenceStats{beats: st.Beats, writes: st.Writes, writeErrors: st.WriteErrors, throttled: st.Throttled, listingErrors: st.RefreshError, busyReads: st.BusyReads}
	}
	if c.src.Stream != nil {
		st := c.src.Stream.Stats()
		s.hasStr = true
		s.stream = streamStats{subscribers: st.Subscribers, subscribed: st.Subscribed, dropped: st.Dropped,
			resumed: st.Resumed, snapshots: st.Snapshots, diffs: st.Seq, refused: st.Refused}
	}
	if c.src.Roster != nil {
		ctx, cancel := context.WithTimeout(context.Background(), rosterTimeout)
		snap, err := c.src.Roster.Snapshot(ctx)
		cancel()
		s.hasRos, s.rosErr = true, err != nil
		s.live, s.colls, s.skip, s.repaired = len(snap.Live), snap.CollisionsTotal, snap.Skipped, snap.Repaired // every pair, listed or not
		s.ovls = snap.OverlapsTotal
		for _, o := range snap.Overlaps {
			if o.Verdict == contract.VerdictConflict {
				s.confl++
			}
			switch o.Across {
			case contract.AcrossClone:
				s.clones++
			case contract.AcrossPushed:
				s.pushed++
			}
		}
	}
	if c.src.Peers != nil {
		s.peers, s.hasPeers = c.src.Peers.Stats(), true
	}
	if c.src.GitScan != nil {
		s.git, s.hasGit = c.src.GitScan.Stats(), true
	}
	if c.src.Recovery != nil {
		s.rec, s.hasRec = c.src.Recovery.RecoveryStats(), true
	}
	if c.src.Remotes != nil {
		s.remote, s.hasRem = c.src.Remotes.Stats(), true
	}
	for _, f := range c.families {
		if v, ok := f.value(s); ok {
			ch <- prometheus.MustNewConstMetric(f.desc, f.kind, v)
		}
	}
	if s.hasRec {
		for _, r := range recovery.Reasons {
			ch <- prometheus.MustNewConstMetric(c.notSaved, prometheus.CounterValue, float64(s.rec.NotSavedBy[r]), string(r))
		}
	}
	if c.src.StoreKind != "" {
		ch <- prometheus.MustNewConstMetric(c.store, prometheus.GaugeValue, 1, c.src.StoreKind)
	}
}
