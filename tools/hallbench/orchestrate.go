package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/presence"
)

// row is one figure of the table.
type row struct {
	figure, value, goal string
	ok                  *bool
}

func pass(b bool) *bool { return &b }

// bench holds what every scenario shares.
type bench struct {
	o    options
	tmp  string
	hall string // the hall binary
	self string // this binary, for worker roles
	rows []row
}

func orchestrate(ctx context.Context, o options) error {
	tmp, err := os.MkdirTemp("", "hallbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b := &bench{o: o, tmp: tmp}
	if b.hall, err = buildHall(ctx, tmp); err != nil {
		return err
	}
	if b.self, err = os.Executable(); err != nil {
		return err
	}
	if o.quick {
		b.o.duration = 2 * time.Second
	}
	// A scenario marked own runs only when -only names it: it takes
	// longer than the default set's budget (task bench-overlaps).
	scenarios := []struct {
		name string
		run  func(context.Context) error
		own  bool
	}{
		{"startup", b.startupAndIdle, false},
		{"beats", b.beats, false},
		{"reads", b.reads, false},
		{"collisions", b.collisions, false},
		{"crowded", b.crowded, false},
		{"latency", b.latency, false},
		{"fanout", b.fanout, false},
		{"crosshall", b.crossHall, false},
		{"page", b.page, false},
		{"hooks", b.hooks, false},
		{"guard", b.guard, false},
		{"overlaps", b.overlaps, true},
		{"clones", b.overlapsClones, true},
		{"machines", b.machines, true},
		{"snapshot", b.snapshot, true},
		{"pushed", b.pushed, true},
	}
	for _, s := range scenarios {
		if (o.only != "" && !strings.Contains(s.name, o.only)) || (s.own && o.only == "") {
			continue
		}
		fmt.Fprintf(os.Stderr, "hallbench: %s…\n", s.name)
		if err := s.run(ctx); err != nil {
			b.rows = append(b.rows, row{s.name, "failed: " + err.Error(), "", pass(false)})
		}
	}
	b.print()
	return nil
}

// loadAverage is the 1-minute load average (Linux), "?" elsewhere: other
// work on the machine moves every figure, the exec floor most.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

func (b *bench) add(figure, value, goal string, ok *bool) {
	b.rows = append(b.rows, row{figure, value, goal, ok})
}

func (b *bench) print() {
	fmt.Printf("\nmachine: %s, %d cores, %s; %s; load average at the end %s\n\n", cpuModel(), runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format("2006-01-02"), loadAverage())
	fmt.Println("| figure | measured | goal | |")
	fmt.Println("|---|---|---|---|")
	for _, r := range b.rows {
		verdict := ""
		if r.ok != nil {
			verdict = map[bool]string{true: "✓", false: "✗"}[*r.ok]
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r.figure, r.value, r.goal, verdict)
	}
}

// startHall runs the hall binary over root and returns it once it listens.
// Its streams are not capped (--max-streams 0): the fan-out is measured at
// 10,000 subscribers and a probe, past the default cap.
func (b *bench) startHall(ctx context.Context, root string, args ...string) (*proc, error) {
	args = append([]string{"--addr", "127.0.0.1:0", "--registry-root", root, "--log-level", "warn", "--max-streams", "0"}, args...)
	return startProc(ctx, b.hall, args, nil, "Hall: open ")
}

func (b *bench) worker(ctx context.Context, announce string, args ...string) (*proc, error) {
	return startProc(ctx, b.self, args, nil, announce)
}

func (b *bench) newRoot(name string) string {
	root := filepath.Join(b.tmp, name)
	_ = os.MkdirAll(root, 0o755)
	return root
}

func health(url string) (contract.Health, error) {
	var h contract.Health
	resp, err := http.Get(url + "/api/health")
	if err != nil {
		return h, err
	}
	defer resp.Body.Close()
	return h, json.NewDecoder(resp.Body).Decode(&h)
}

// startupAndIdle: idle resident memory of an empty Hall, and the time from
// exec to serving a registry of 10,000 sidecar files.
func (b *bench) startupAndIdle(ctx context.Context) error {
	h, err := b.startHall(ctx, b.newRoot("idle"))
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	rss, err := residentOf(h.cmd.Process.Pid)
	h.stop()
	if err != nil {
		return err
	}
	// The goal is the whole resident set's. Its parts beside it: the
	// anonymous part is the Hall's own (heap, stacks, runtime); the
	// file-backed part is the pages of the binary (and of libc) it mapped,
	// which grow with what is linked and are shared with the page cache.
	value := fmt.Sprintf("%.1f MB", mib(rss.totalKiB))
	if rss.anonKiB+rss.fileKiB > 0 {
		value += fmt.Sprintf(" (%.1f MB anonymous + %.1f MB file-backed: the binary's and libc's pages)", mib(rss.anonKiB), mib(rss.fileKiB))
	}
	b.add("idle resident memory", value, "≤ 30 MB", pass(rss.totalKiB <= 30*1024))

	n := 10000
	root := b.newRoot("startup")
	if err := writeRegistry(root, n, 50, time.Now().UnixMilli()); err != nil {
		return err
	}
	var samples []time.Duration
	for try := 0; try < 3; try++ {
		t0 := time.Now()
		h, err := b.startHall(ctx, root)
		if err != nil {
			return err
		}
		for {
			hl, err := health(h.url)
			if err == nil && hl.Presences != nil && hl.Presences.Live == n {
				break
			}
			if time.Since(t0) > 30*time.Second {
				h.stop()
				return fmt.Errorf("10,000 presences not served within 30 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		samples = append(samples, time.Since(t0))
		h.stop()
	}
	med := median(samples)
	b.add("start-up over 10,000 sidecar files (exec → all served, median of 3)", fmt.Sprintf("%d ms", med.Milliseconds()), "≤ 1 s", pass(med <= time.Second))
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// beats: 200 agents beating the Hall, then the same load against a bare
// Echo 204 handler, side by side in one run.
func (b *bench) beats(ctx context.Context) error {
	h, err := b.startHall(ctx, b.newRoot("beats"))
	if err != nil {
		return err
	}
	defer h.stop()
	bare, err := b.worker(ctx, "http://", "-role", "bare")
	if err != nil {
		return err
	}
	defer bare.stop()
	bareURL := "http://" + bare.url
	agents := strconv.Itoa(b.o.agents)
	dur := b.o.duration.String()

	// The Hall and the bare handler take the same load by turns, three
	// rounds each, so both see the machine in the same moods; the figures
	// are each side's median round. Store writes are counted over the
	// first round.
	hallArgs := []string{"-role", "beat", "-url", h.url, "-agents", agents, "-duration", dur}
	bareArgs := []string{"-role", "beat", "-url", bareURL, "-agents", agents, "-duration", dur}
	before, err := health(h.url)
	if err != nil {
		return err
	}
	var first loadResult
	if err := b.load(ctx, &first, hallArgs...); err != nil {
		return err
	}
	after, err := health(h.url)
	if err != nil {
		return err
	}
	halls, floors, err := b.alternate(ctx, sideRounds, bareArgs, hallArgs)
	if err != nil {
		return err
	}
	halls = append(halls, first)
	hall, floor := medianRun(halls), medianRun(floors)
	writes := float64(after.Store.Writes-before.Store.Writes) / first.Seconds
	ratio := medianRatio(halls[:len(floors)], floors)
	b.add(fmt.Sprintf("beat ingestion, %d agents: beats/s (p50 / p99), median of %d rounds", b.o.agents, len(halls)),
		fmt.Sprintf("%.0f/s (%.2f / %.2f ms), %d errors, %d non-2xx", hall.RPS, hall.P50Ms, hall.P99Ms, hall.Errors, hall.Requests-hall.Errors-int64(hall.Status[2])), "", nil)
	b.add(fmt.Sprintf("bare Echo 204, same load, by turns: req/s (p50 / p99), median of %d rounds", len(floors)), fmt.Sprintf("%.0f/s (%.2f / %.2f ms)", floor.RPS, floor.P50Ms, floor.P99Ms), "", nil)
	b.add("beat path ÷ bare handler, median of the rounds", fmt.Sprintf("%.0f %% (rounds %s)", 100*ratio, ratioRange(halls[:len(floors)], floors)), "≥ 60 %", pass(ratio >= 0.6))
	// Each presence is written when it first beats, then at most once per
	// 5 s, plus one forced write per 50 beats (a new theme).
	windows := float64(int(first.Seconds/5) + 1)
	expected := (float64(b.o.agents)*windows + float64(first.Requests)/50) / first.Seconds
	b.add("store writes/s during ingestion", fmt.Sprintf("%.0f/s (throttle bound %.0f/s: %d presences × one a 5 s window, + one forced per 50 beats)", writes, expected, b.o.agents),
		"≈ 1 per presence per 5 s + forced", pass(writes <= expected*1.1+1))
	return nil
}

// sideRounds is how many turns each side of a side-by-side comparison
// takes.
const sideRounds = 3

// alternate runs load a (the floor) and load b by turns, rounds times
// each, so both meet the machine's changing load alike.
func (b *bench) alternate(ctx context.Context, rounds int, a, bArgs []string) (bs, as []loadResult, err error) {
	for i := 0; i < rounds; i++ {
		var ra, rb loadResult
		if err := b.load(ctx, &ra, a...); err != nil {
			return nil, nil, err
		}
		if err := b.load(ctx, &rb, bArgs...); err != nil {
			return nil, nil, err
		}
		as, bs = append(as, ra), append(bs, rb)
	}
	return bs, as, nil
}

// medianRun is the run with the median rate.
func medianRun(rs []loadResult) loadResult {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(x, y loadResult) int { return cmp.Compare(x.RPS, y.RPS) })
	return s[len(s)/2]
}

// medianRatio is the median over rounds of a round's rate to the rate of
// the floor run beside it.
func medianRatio(rs, floors []loadResult) float64 {
	var ratios []float64
	for i := range min(len(rs), len(floors)) {
		ratios = append(ratios, rs[i].RPS/floors[i].RPS)
	}
	slices.Sort(ratios)
	return ratios[len(ratios)/2]
}

// ratioRange is the least and greatest ratio of one round's rate to its
// floor's, as "lo–hi %".
func ratioRange(rs, floors []loadResult) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range min(len(rs), len(floors)) {
		r := rs[i].RPS / floors[i].RPS
		lo, hi = min(lo, r), max(hi, r)
	}
	return fmt.Sprintf("%.0f–%.0f %%", 100*lo, 100*hi)
}

func (b *bench) load(ctx context.Context, out *loadResult, args ...string) error {
	p, err := b.worker(ctx, "", args...)
	if err != nil {
		return err
	}
	return p.result(out)
}

// reads: the contract, full and conditional, at 100 and 1,000 presences
// over 50 brains, beside a bare Echo handler.
func (b *bench) reads(ctx context.Context) error {
	bare, err := b.worker(ctx, "http://", "-role", "bare")
	if err != nil {
		return err
	}
	defer bare.stop()
	dur := b.o.duration.String()
	bareArgs := []string{"-role", "get", "-url", "http://" + bare.url, "-conns", "4", "-duration", dur}
	for _, n := range []int{100, 1000} {
		root := b.newRoot(fmt.Sprintf("reads-%d", n))
		if err := writeRegistry(root, n, 50, time.Now().UnixMilli()); err != nil {
			return err
		}
		h, err := b.startHall(ctx, root)
		if err != nil {
			return err
		}
		etag, err := waitETag(h.url, n)
		if err != nil {
			h.stop()
			return err
		}
		// The conditional reads and the bare handler take turns, three
		// rounds each; the figures are each side's median round.
		var full loadResult
		var conds, floors []loadResult
		err = b.load(ctx, &full, "-role", "get", "-url", h.url, "-conns", "4", "-duration", dur)
		if err == nil {
			conds, floors, err = b.alternate(ctx, sideRounds, bareArgs, []string{"-role", "get", "-url", h.url, "-conns", "4", "-duration", dur, "-etag", etag})
		}
		h.stop()
		if err != nil {
			return err
		}
		cond, floor := medianRun(conds), medianRun(floors)
		ratio := medianRatio(conds, floors)
		b.add(fmt.Sprintf("bare Echo 204 GET, 4 connections, by turns with the next row: req/s (p99), median of %d", len(floors)), fmt.Sprintf("%.0f/s (%.2f ms)", floor.RPS, floor.P99Ms), "", nil)
		fullOK := (*bool)(nil)
		goal := ""
		if n == 100 {
			fullOK, goal = pass(full.P99Ms <= 5), "p99 ≤ 5 ms"
		}
		b.add(fmt.Sprintf("GET /api/presences, %d presences, 4 connections: req/s (p99)", n), fmt.Sprintf("%.0f/s (%.2f ms)", full.RPS, full.P99Ms), goal, fullOK)
		b.add(fmt.Sprintf("conditional GET → 304, %d presences: req/s (p99), ÷ bare", n),
			fmt.Sprintf("%.0f/s (%.2f ms), %.0f %% (rounds %s; %d of %d were 304)", cond.RPS, cond.P99Ms, 100*ratio, ratioRange(conds, floors), cond.Status[3], cond.Requests), "≥ 80 % of bare", pass(ratio >= 0.8 && cond.Status[3] == int(cond.Requests)))
	}
	return nil
}

// waitETag waits until the Hall serves n presences and returns its ETag.
func waitETag(url string, n int) (string, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/api/presences")
		if err == nil {
			var r contract.PresencesResponse
			_ = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if len(r.Presences) == n && resp.Header.Get("ETag") != "" {
				return resp.Header.Get("ETag"), nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "", fmt.Errorf("the Hall did not serve %d presences with an ETag", n)
}

// collisions runs the Go benchmark of the derivation and reads its ns/op.
func (b *bench) collisions(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", "^BenchmarkCollisionsIn$", "-benchtime", "2s", "-count", "5", "./internal/presence/")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go test -bench: %w", err)
	}
	re := regexp.MustCompile(`BenchmarkCollisionsIn/(?:n=|presences=)?(\d+)\S*\s+\d+\s+([\d.]+) ns/op`)
	per := map[int][]time.Duration{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.Atoi(m[1])
			ns, _ := strconv.ParseFloat(m[2], 64)
			per[n] = append(per[n], time.Duration(ns))
		}
	}
	if len(per[1000]) == 0 {
		return fmt.Errorf("no BenchmarkCollisionsIn results in:\n%s", out)
	}
	med := map[int]time.Duration{}
	for n, ds := range per {
		med[n] = median(ds)
	}
	for _, n := range []int{100, 1000, 10000} {
		if d, ok := med[n]; ok {
			var okp *bool
			goal := ""
			if n == 1000 {
				okp, goal = pass(d <= time.Millisecond), "≤ 1 ms"
			}
			b.add(fmt.Sprintf("collision derivation, %d presences / 50 brains (median of 5)", n), fmtDur(d), goal, okp)
		}
	}
	if med[1000] > 0 && med[10000] > 0 {
		g := float64(med[10000]) / float64(med[1000])
		b.add("derivation growth, 10× presences", fmt.Sprintf("%.1f× time", g), "≤ 15×", pass(g <= 15))
	}
	return nil
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1e3)
	default:
		return fmt.Sprintf("%.2f ms", float64(d.Nanoseconds())/1e6)
	}
}

// probeChanges writes count probe records into the registry, spaced apart,
// each named for the instant it is written.
func probeChanges(dir string, count int, gap time.Duration) error {
	for i := 0; i < count; i++ {
		now := time.Now()
		agent := fmt.Sprintf("%s%d", probePrefix, now.UnixNano())
		r := presence.Record{Schema: presence.Schema, PresenceID: presence.ID(agent, "/bench/probe"), AgentID: agent, Brain: "/bench/probe",
			FirstSeenMs: now.UnixMilli(), LastBeatMs: now.UnixMilli(), QueryCount: 1, TTLMs: 3_600_000}
		if err := writeRecord(dir, r); err != nil {
			return err
		}
		time.Sleep(gap)
	}
	return nil
}

// latency: an outside sidecar write → the diff on 1,000 subscribers, with
// 1,000 presences in the roster.
func (b *bench) latency(ctx context.Context) error {
	n, subs, probes := 1000, 1000, 30
	if b.o.quick {
		subs, probes = 200, 10
	}
	res, _, err := b.subscribers(ctx, n, subs, probes, 150*time.Millisecond)
	if err != nil {
		return err
	}
	b.add(fmt.Sprintf("change → subscriber, outside write, %d presences, %d subscribers: p50 / p99", n, subs),
		fmt.Sprintf("%.1f / %.1f ms (%d samples, %s)", res.P50Ms, res.P99Ms, res.Samples, res.lost()), "p99 ≤ 25 ms", pass(res.P99Ms <= 25 && res.Missed == 0))
	return nil
}

// fanout: memory per subscriber and time for one diff to reach them all.
func (b *bench) fanout(ctx context.Context) error {
	counts := []int{1000, 5000, 10000}
	if b.o.quick {
		counts = []int{500}
	}
	for _, subs := range counts {
		// Probes a second apart: each diff is timed alone. At 10,000
		// streams one diff keeps both cores busy for longer than the
		// latency scenario's 150 ms spacing, and diffs that close
		// together would time the queue behind them instead.
		res, perSubKiB, err := b.subscribers(ctx, 100, subs, 5, time.Second)
		if err != nil {
			return err
		}
		b.add(fmt.Sprintf("fan-out, %d subscribers: resident memory per subscriber", subs), fmt.Sprintf("%.1f KiB", perSubKiB), "≤ 24 KiB", pass(perSubKiB <= 24))
		var okp *bool
		goal := ""
		if subs == 10000 {
			okp, goal = pass(res.P99Ms <= 250 && res.Missed == 0), "p99 ≤ 250 ms"
		}
		b.add(fmt.Sprintf("fan-out, %d subscribers: one diff reaches all, p50 / p99 / max", subs),
			fmt.Sprintf("%.0f / %.0f / %.0f ms (%s)", res.P50Ms, res.P99Ms, res.MaxMs, res.lost()), goal, okp)
	}
	return nil
}

// subscribers starts a Hall over n presences, connects subs SSE
// subscribers (in two processes, to stay inside the open-file limit),
// writes probes from outside, and returns the merged latencies and the
// Hall's resident memory per subscriber.
func (b *bench) subscribers(ctx context.Context, n, subs, probes int, gap time.Duration) (subscribeResult, float64, error) {
	root := b.newRoot(fmt.Sprintf("subs-%d-%d", n, subs))
	if err := writeRegistry(root, n, 50, time.Now().UnixMilli()); err != nil {
		return subscribeResult{}, 0, err
	}
	h, err := b.startHall(ctx, root)
	if err != nil {
		return subscribeResult{}, 0, err
	}
	defer h.stop()
	if _, err := waitETag(h.url, n); err != nil {
		return subscribeResult{}, 0, err
	}
	time.Sleep(500 * time.Millisecond)
	rss0, _ := rssKiB(h.cmd.Process.Pid)

	procs := 1
	if subs > 2000 {
		procs = 2
	}
	var ws []*proc
	for i := 0; i < procs; i++ {
		p, err := b.worker(ctx, "", "-role", "subscribe", "-url", h.url, "-subs", strconv.Itoa(subs/procs), "-probes", strconv.Itoa(probes), "-duration", "120s")
		if err != nil {
			return subscribeResult{}, 0, err
		}
		defer p.stop()
		if err := p.waitLine("ready", 120*time.Second); err != nil {
			return subscribeResult{}, 0, fmt.Errorf("subscribers: %w", err)
		}
		ws = append(ws, p)
	}
	time.Sleep(time.Second)
	rss1, _ := rssKiB(h.cmd.Process.Pid)
	if err := probeChanges(filepath.Join(root, "presences"), probes, gap); err != nil {
		return subscribeResult{}, 0, err
	}
	var merged subscribeResult
	for _, p := range ws {
		var r subscribeResult
		if err := p.result(&r); err != nil {
			return subscribeResult{}, 0, err
		}
		merged.Connected += r.Connected
		merged.Samples += r.Samples
		merged.Missed += r.Missed
		merged.P50Ms = max(merged.P50Ms, r.P50Ms)
		merged.P99Ms = max(merged.P99Ms, r.P99Ms)
		merged.MaxMs = max(merged.MaxMs, r.MaxMs)
	}
	if merged.Connected != subs/procs*procs {
		return merged, 0, fmt.Errorf("only %d of %d subscribers connected", merged.Connected, subs)
	}
	if hh, err := health(h.url); err == nil && hh.Stream != nil {
		merged.Dropped = hh.Stream.Dropped
	}
	return merged, float64(rss1-rss0) / float64(merged.Connected), nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}
