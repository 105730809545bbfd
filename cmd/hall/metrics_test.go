package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/stream"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// scrapeMetrics GETs /metrics and parses the text format.
func scrapeMetrics(tb testing.TB, base string) map[string]*dto.MetricFamily {
	tb.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		tb.Fatalf("GET /metrics: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		tb.Fatalf("GET /metrics: got %d %q, want 200 in the Prometheus text format", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		tb.Fatalf("GET /metrics: parse: %v", err)
	}
	return fams
}

// sample is one family's value in a scrape: a counter's or gauge's value,
// a histogram's count; summed over the family's labels.
func sample(f *dto.MetricFamily) float64 {
	var v float64
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			v += m.Counter.GetValue()
		case m.Gauge != nil:
			v += m.Gauge.GetValue()
		case m.Histogram != nil:
			v += float64(m.Histogram.GetSampleCount())
		}
	}
	return v
}

// hallFamilies are the Hall's own families of a scrape, by name.
func hallFamilies(fams map[string]*dto.MetricFamily) map[string]*dto.MetricFamily {
	out := map[string]*dto.MetricFamily{}
	for name, f := range fams {
		if strings.HasPrefix(name, "hall_") {
			out[name] = f
		}
	}
	return out
}

// TestMetricsMoveWithBeatsAndStreams scrapes a real Hall before and after
// beats, a collision, a leave, junk in the registry, streams opened,
// resumed and closed, and checks the families that count them moved, with
// the Go runtime and process collectors beside them.
func TestMetricsMoveWithBeatsAndStreams(t *testing.T) {
	m := MustOpenHall(t, Config{TTL: 10 * time.Minute})
	base := m.URL()
	before := scrapeMetrics(t, base)
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes", "process_open_fds"} {
		if before[name] == nil {
			t.Errorf("no %s: the Go runtime and process collectors are missing", name)
		}
	}
	if len(hallFamilies(before)) == 0 {
		t.Fatal("no hall_ family")
	}

	// A subscriber that stays open while the roster changes.
	follower := streamtest.Follow(t, base+"/api/presences/stream", "")
	follower.Next(t, "its snapshot")

	const brain, wt = "/srv/shop", "/srv/shop/wt-1"
	a := beatHall(t, base, contract.BeatRequest{AgentID: "claude-7", Brain: brain, Worktree: wt, DeclaredIntent: "mutate"})
	beatHall(t, base, contract.BeatRequest{AgentID: "claude-7", Brain: brain, Worktree: wt, DeclaredIntent: "mutate"}) // throttled
	beatHall(t, base, contract.BeatRequest{AgentID: "codex-2", Brain: brain, Worktree: wt, DeclaredIntent: "mutate"})
	writeSidecar(t, m.Config.RegistryRoot, "junk.json", "{not a record")
	eventually.True(t, wait, "the junk file counted", func() bool {
		snap, err := m.Hub.Snapshot(context.Background())
		return err == nil && snap.Skipped == 1
	})
	follower.Until(t, "the collision", func(c stream.Change) bool { return len(c.Opened) > 0 })
	mid := scrapeMetrics(t, base)

	// A reconnect from the subscriber's last event resumes; then a leave.
	resumed := streamtest.Follow(t, base+"/api/presences/stream", follower.Stop())
	eventually.True(t, wait, "the stream resumed", func() bool { return m.Hub.Stats().Resumed == 1 })
	req, _ := http.NewRequest(http.MethodDelete, base+"/api/presences/"+a.PresenceID, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("leave: %v %v", resp, err)
	}
	resp.Body.Close()
	if ev := resumed.Next(t, "the leave"); ev.Diff == nil || len(ev.Diff.Leaves) != 1 {
		t.Errorf("the resumed stream's first event: %+v, want the leave", ev)
	}
	after := scrapeMetrics(t, base)
	resumed.Stop()

	for _, tc := range []struct {
		name       string
		from, to   map[string]*dto.MetricFamily
		want, plus float64 // want: the value at to; plus: least growth from from
	}{
		{"hall_beats_total", before, mid, 3, 3},
		{"hall_beats_throttled_total", before, mid, 1, 1},
		{"hall_store_writes_total", before, mid, -1, 2},
		{"hall_presences_live", before, mid, 2, 2},
		{"hall_collisions_open", before, mid, 1, 1},
		{"hall_store_skipped_entries", before, mid, 1, 1},
		{"hall_stream_subscribers", before, mid, 1, 1},
		{"hall_stream_subscriptions_total", before, after, 2, 2},
		{"hall_stream_snapshots_total", before, mid, 1, 1},
		{"hall_stream_resumed_total", mid, after, 1, 1},
		{"hall_stream_diffs_total", before, after, -1, 2},
		{"hall_stream_fanout_duration_seconds", before, after, -1, 2},
		{"hall_store_read_duration_seconds", before, mid, -1, 1},
		{"hall_presences_live", mid, after, 1, -1},
		{"hall_collisions_open", mid, after, 0, -1},
	} {
		f, t0 := tc.to[tc.name], tc.from[tc.name]
		if f == nil || t0 == nil {
			t.Errorf("%s: not in the scrape", tc.name)
			continue
		}
		got, grew := sample(f), sample(f)-sample(t0)
		if tc.want >= 0 && got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if tc.plus >= 0 && grew < tc.plus {
			t.Errorf("%s: grew by %v, want at least %v", tc.name, grew, tc.plus)
		}
	}
	var moved []string
	for name, f := range hallFamilies(after) {
		if b := before[name]; b != nil && sample(f) != sample(b) {
			moved = append(moved, name)
		}
	}
	if len(moved) < 6 {
		t.Errorf("%d hall_ families moved (%v), want at least 6", len(moved), moved)
	}
	if f := after["hall_store_info"]; f == nil || len(f.GetMetric()) != 1 || f.GetMetric()[0].GetLabel()[0].GetValue() != "dir" {
		t.Errorf("hall_store_info: %v, want kind=dir", f)
	}
}

// TestMetricsDocumented: every hall_ family a Hall serves is in
// docs/metrics.md with its type, and none has a label whose values agents
// choose (brain, agent, presence): only the fixed sets.
func TestMetricsDocumented(t *testing.T) {
	m := MustOpenHall(t, Config{Snapshots: true}) // the recovery families too
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	fixedLabels := []string{"read", "kind", "reason"}
	fams := hallFamilies(scrapeMetrics(t, m.URL()))
	if len(fams) < 15 {
		t.Errorf("%d hall_ families, want the 15 or more docs/metrics.md lists", len(fams))
	}
	for name, f := range fams {
		row := fmt.Sprintf("| `%s` | %s |", name, strings.ToLower(f.GetType().String()))
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/metrics.md has no row starting %q", row)
		}
		for _, mt := range f.GetMetric() {
			for _, l := range mt.GetLabel() {
				if !slices.Contains(fixedLabels, l.GetName()) {
					t.Errorf("%s has label %q: only %v, whose values are a fixed set", name, l.GetName(), fixedLabels)
				}
			}
		}
	}
}

// metricValue reads one unlabelled gauge from the Hall's /metrics.
func metricValue(t *testing.T, base, name string) int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return int(f)
		}
	}
	t.Fatalf("no %s in /metrics", name)
	return 0
}
