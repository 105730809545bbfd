package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/metrics"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream"
)

// TestRegistryOfItsOwn: two registries live side by side (two Halls in one
// process), nothing lands on the global default registry, a source left
// nil leaves its families out, and the histograms count what they are
// told.
func TestRegistryOfItsOwn(t *testing.T) {
	svc := presence.NewService(nil, presence.Config{}) // counters only: no store is read
	hub := stream.NewHub(svc, stream.Config{})         // not started: counters only
	a, b := metrics.New(), metrics.New()
	scanner := gitscan.NewScanner(gitscan.ScannerConfig{}) // not started: counters only
	scanner.Track([]string{"/nowhere"})
	a.Watch(metrics.Sources{Service: svc, Stream: hub, GitScan: scanner, StoreKind: "dir"})
	b.Watch(metrics.Sources{Service: svc})
	a.FanoutTime.Observe(0.001)
	a.ListingTime.Observe(0.002)

	scrape := func(m *metrics.Metrics) map[string]float64 {
		srv := httptest.NewServer(m.Handler(nil))
		defer srv.Close()
		resp, err := http.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for name, f := range fams {
			for _, m := range f.GetMetric() {
				switch {
				case m.Counter != nil:
					out[name] += m.Counter.GetValue()
				case m.Gauge != nil:
					out[name] += m.Gauge.GetValue()
				case m.Histogram != nil:
					out[name] += float64(m.Histogram.GetSampleCount())
				}
			}
		}
		return out
	}
	ga, gb := scrape(a), scrape(b)
	for _, name := range []string{"hall_beats_total", "hall_stream_subscribers", "hall_store_info", "hall_gitscan_scans_total", "go_goroutines", "process_open_fds"} {
		if _, ok := ga[name]; !ok {
			t.Errorf("a: no %s", name)
		}
	}
	if ga["hall_stream_fanout_duration_seconds"] != 1 || ga["hall_store_read_duration_seconds"] != 1 {
		t.Errorf("a's histograms: fanout %v, read %v, want 1 and 1", ga["hall_stream_fanout_duration_seconds"], ga["hall_store_read_duration_seconds"])
	}
	if ga["hall_gitscan_tracked"] != 1 {
		t.Errorf("a: hall_gitscan_tracked = %v, want 1", ga["hall_gitscan_tracked"])
	}
	if gb["hall_stream_fanout_duration_seconds"] != 0 {
		t.Errorf("b's fanout histogram counted a's observation")
	}
	for _, name := range []string{"hall_stream_subscribers", "hall_presences_live", "hall_registry_unreadable", "hall_store_info", "hall_gitscan_tracked"} {
		if _, ok := gb[name]; ok {
			t.Errorf("b serves %s though it was given no source for it", name)
		}
	}
	def, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range def {
		if strings.HasPrefix(f.GetName(), metrics.Namespace+"_") {
			t.Errorf("%s is on the default registry", f.GetName())
		}
	}
}
