package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/chromedp/chromedp"
)

// page: the Hall page in a real chromium (Debian's, driven by chromedp),
// timed by the page's own Performance API. First render of / at 100, 1,000
// and 10,000 presences: first contentful paint after navigation start
// (median of pageLoads loads) and the HTML's bytes. Then, at 1,000
// presences with a beat every 20 ms (a diff every 20 ms), the time from a
// diff's arrival on the page's stream to the DOM updated with it: the
// script's "hall-update" performance measures, p50 and p99.
func (b *bench) page(ctx context.Context) error {
	chromium := chromiumPath()
	if chromium == "" {
		return fmt.Errorf("chromium is not installed (apt-get install -y chromium)")
	}
	counts := []int{100, 1000, 10000}
	updateFor := 15 * time.Second
	if b.o.quick {
		counts, updateFor = []int{100, 1000}, 4*time.Second
	}
	for _, n := range counts {
		if err := b.pageAt(ctx, chromium, n, updateFor); err != nil {
			return err
		}
	}
	return nil
}

const pageLoads = 5

const counts1000 = 1000

// paintMedian loads url pageLoads times and returns the median first
// contentful paint.
func paintMedian(tab context.Context, url string) (float64, error) {
	var ps []float64
	for range pageLoads {
		if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
			return 0, err
		}
		v, err := chromedp.Run(tab, chromedp.Poll[float64](`(() => {
			const p = performance.getEntriesByName('first-contentful-paint')[0];
			return p ? p.startTime : false;
		})()`, chromedp.WithPollingTimeout(30*time.Second)))
		if err != nil {
			return 0, err
		}
		ps = append(ps, v)
	}
	slices.Sort(ps)
	return ps[len(ps)/2], nil
}

func (b *bench) pageAt(ctx context.Context, chromium string, n int, updateFor time.Duration) error {
	root := b.newRoot(fmt.Sprintf("page-%d", n))
	if err := writeRegistry(root, n, 50, time.Now().UnixMilli()); err != nil {
		return err
	}
	h, err := b.startHall(ctx, root)
	if err != nil {
		return err
	}
	defer h.stop()
	if _, err := waitETag(h.url, n); err != nil {
		return err
	}
	tab, done, err := openChromium(ctx, chromium)
	if err != nil {
		return err
	}
	defer done()

	if n == counts1000 {
		// The floor: the browser's own cost of a page in the same layout
		// with almost nothing in it (an unknown brain's 404 page).
		floor, err := paintMedian(tab, h.url+"/?brain=/bench/nobody")
		if err != nil {
			return err
		}
		b.add("page: the floor, a near-empty page in the same layout (an unknown brain's 404): first contentful paint, median of 5",
			fmt.Sprintf("%.0f ms", floor), "", nil)
	}
	var paints, waits []float64
	var bytes int64
	for range pageLoads {
		var nav struct {
			FCP   float64 `json:"fcp"`
			Wait  float64 `json:"wait"`
			Bytes int64   `json:"bytes"`
		}
		if err := chromedp.Do(tab, chromedp.Navigate(h.url+"/")); err != nil {
			return fmt.Errorf("open the page: %w", err)
		}
		v, err := chromedp.Run(tab, chromedp.Poll[string](`(() => {
			const p = performance.getEntriesByName('first-contentful-paint')[0];
			const n = performance.getEntriesByType('navigation')[0];
			return p && n ? JSON.stringify({fcp: p.startTime, wait: n.responseStart - n.requestStart, bytes: n.decodedBodySize}) : false;
		})()`, chromedp.WithPollingTimeout(30*time.Second)))
		if err != nil {
			return fmt.Errorf("read the paint timing: %w", err)
		}
		if err := json.Unmarshal([]byte(v), &nav); err != nil {
			return err
		}
		paints, waits = append(paints, nav.FCP), append(waits, nav.Wait)
		bytes = nav.Bytes
	}
	slices.Sort(paints)
	slices.Sort(waits)
	fcp := paints[len(paints)/2]
	var ok *bool
	goal := ""
	switch n {
	case 1000:
		ok, goal = pass(fcp <= 300), "≤ 300 ms"
	case 10000:
		ok, goal = pass(bytes < 1<<20), "HTML < 1 MB"
	}
	b.add(fmt.Sprintf("page: first render of /, %d presences: first contentful paint (range), the server's part; HTML, median of %d", n, pageLoads),
		fmt.Sprintf("%.0f ms (%.0f–%.0f), server %.0f ms; %.0f KiB", fcp, paints[0], paints[len(paints)-1], waits[len(waits)/2], float64(bytes)/1024), goal, ok)
	if n != 1000 {
		return nil
	}
	return b.pageUpdates(ctx, tab, h.url, updateFor)
}

// pageUpdates beats one agent every 20 ms while the page is live, then
// reads the page's update measures.
func (b *bench) pageUpdates(ctx context.Context, tab context.Context, url string, d time.Duration) error {
	if _, err := chromedp.Run(tab, chromedp.Poll[bool](`document.querySelector('[data-testid="status"]').dataset.state === 'live' && performance.clearMeasures('hall-update') === undefined`,
		chromedp.WithPollingTimeout(30*time.Second))); err != nil {
		return fmt.Errorf("the page never went live: %w", err)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(d)
	beats := 0
	for time.Now().Before(end) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		body, _ := json.Marshal(map[string]any{"agent_id": "agent-00001", "brain": "/bench/brain-01", "tool": "Read", "theme": fmt.Sprintf("beat %d", beats)})
		resp, err := client.Post(url+"/api/presences/beat", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		resp.Body.Close()
		beats++
	}
	time.Sleep(time.Second) // the last updates land
	ms, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](`performance.getEntriesByName('hall-update').map(e => e.duration)`))
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return fmt.Errorf("the page measured no update")
	}
	slices.Sort(ms)
	p := func(q float64) float64 { return ms[min(len(ms)-1, int(q*float64(len(ms))))] }
	// Where an update's time goes: the fragment fetches' server wait and
	// transfer, from the page's resource timing.
	var rt struct {
		Wait, Total, Bytes []float64
	}
	v, err := chromedp.Run(tab, chromedp.Evaluate[string](`JSON.stringify((() => {
		const rs = performance.getEntriesByType('resource').filter(r => r.name.includes('/fragments/hall'));
		return {Wait: rs.map(r => r.responseStart - r.requestStart), Total: rs.map(r => r.duration), Bytes: rs.map(r => r.encodedBodySize)};
	})())`))
	if err == nil && json.Unmarshal([]byte(v), &rt) == nil && len(rt.Total) > 0 {
		med := func(xs []float64) float64 { slices.Sort(xs); return xs[len(xs)/2] }
		b.add("page: one region fetch during those updates, median: server wait / whole fetch / body",
			fmt.Sprintf("%.1f / %.1f ms / %.0f KiB (%d fetches)", med(rt.Wait), med(rt.Total), med(rt.Bytes)/1024, len(rt.Total)), "", nil)
	}
	b.add("page: diff arrival → DOM updated, 1,000 presences, a diff every 20 ms: p50 / p99 / max",
		fmt.Sprintf("%.1f / %.1f / %.1f ms (%d diffs over %d beats)", p(0.5), p(0.99), ms[len(ms)-1], len(ms), beats), "p99 ≤ 50 ms", pass(p(0.99) <= 50))
	return nil
}

// openChromium starts a headless chromium with a fresh profile.
func openChromium(ctx context.Context, path string) (context.Context, func(), error) {
	dir, err := os.MkdirTemp("", "hallbench-chromium-")
	if err != nil {
		return nil, nil, err
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900))
	tab, cancel := chromedp.NewContext(actx)
	done := func() { cancel(); cancelAlloc(); os.RemoveAll(dir) }
	if err := chromedp.Do(tab); err != nil {
		done()
		return nil, nil, fmt.Errorf("start chromium: %w", err)
	}
	return tab, done, nil
}

// chromiumPath finds Debian's chromium, else one on PATH.
func chromiumPath() string {
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}
