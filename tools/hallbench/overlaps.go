package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/metrics"
)

// overlapSizes size the overlap scenario.
type overlapSizes struct {
	files     int // files in the generated repository
	worktrees int // worktrees, one agent in each, of the side-by-side rounds
	// memWorktrees is the worktree count of the memory figure (more
	// worktrees are added for it); 0 skips it.
	memWorktrees int
	rounds       int           // rounds of each side, git on and git off, by turns
	cycles       int           // probe cycles a round: each pairs every agent with a new partner
	stagger      time.Duration // the pairs of a cycle start this far apart, in all
	window       time.Duration // a probe's wait for git's answer, from the second change
	memFor       time.Duration // how long the memory figure's agents beat
	// steady is how long the agents edit their own files alone, after the
	// warm-up and before the probes: the hooks' latency in steady work.
	steady  time.Duration
	goBench bool // run the merge prediction's Go benchmarks
	// clones: each agent works in a clone of its own (issue #43), not a
	// worktree of one clone; the memory figure is skipped.
	clones bool
}

// sides names what the agents work in: "worktrees" or "clones".
func (z overlapSizes) sides() string {
	if z.clones {
		return "clones"
	}
	return "worktrees"
}

// overlapSizesFor is the published run's sizes (issue #20: 50 worktrees
// of ~10,000 files, memory at 200), or a smoke run's.
func overlapSizesFor(quick bool) overlapSizes {
	if quick {
		return overlapSizes{files: 2000, worktrees: 10, memWorktrees: 20, rounds: 1, cycles: 2, stagger: 2 * time.Second, window: 6 * time.Second, memFor: 10 * time.Second, steady: 3 * time.Second}
	}
	return overlapSizes{files: 10000, worktrees: 50, memWorktrees: 200, rounds: 3, cycles: 3, stagger: 6 * time.Second, window: 10 * time.Second, memFor: 40 * time.Second, steady: 30 * time.Second, goBench: true}
}

// obRound is what one round measured.
type obRound struct {
	git              bool
	times            *hookTimes
	probes           []*probe
	cpuSelf, cpuKids time.Duration // the Hall's own CPU, its git children's
	elapsed          time.Duration // over which the CPU was read
	rss              resident
	gitStats         map[string]float64 // the Hall's hall_gitscan_* metrics at the end
	reads            int                // roster reads by the probes' watch
}

// overlaps: the issue #20 performance figures. A generated repository of
// ~10,000 files and 50 worktrees, an agent beating in each as Claude
// Code's hooks do; a Hall with git on and one with git off take the same
// agents by turns (a fresh Hall and registry each round). Measured: the
// time from the second side's change to the overlap listed with git's
// answer, the hook calls' latency on against off (in steady work and
// while the probes run), the Hall's CPU and its git children's, its
// resident memory at 50 worktrees and at 200; and the merge prediction's
// cost per pair beside git merge-tree by hand.
func (b *bench) overlaps(ctx context.Context) error {
	z := overlapSizesFor(b.o.quick)
	if !b.o.quick {
		z.worktrees, z.memWorktrees, z.stagger, z.rounds = b.o.worktrees, b.o.memWorktrees, b.o.stagger, max(1, b.o.rounds)
	}
	return b.runOverlaps(ctx, z)
}

// overlapsClones: the issue #43 figure, the overlaps scenario over
// clones: 20 clones of one ~10,000-file repository on this machine, an
// agent in each; the overlap across two clones, git's merge predicted,
// seen by both sides.
func (b *bench) overlapsClones(ctx context.Context) error {
	z := overlapSizesFor(b.o.quick)
	z.clones, z.memWorktrees, z.goBench = true, 0, false
	if b.o.quick {
		z.worktrees, z.cycles = 4, 1
	} else {
		z.worktrees, z.stagger, z.rounds = 20, b.o.stagger, max(1, b.o.rounds)
	}
	return b.runOverlaps(ctx, z)
}

func (b *bench) runOverlaps(ctx context.Context, z overlapSizes) error {
	ons, offs, mem, err := b.overlapRounds(ctx, z)
	if err != nil {
		return err
	}
	b.overlapRows(z, ons, offs)
	if mem != nil {
		med := medianBy(ons, func(r obRound) float64 { return float64(r.rss.totalKiB) })
		per := float64(mem.rss.anonKiB-med.rss.anonKiB) / float64(z.memWorktrees-z.worktrees)
		b.add(fmt.Sprintf("Hall resident memory, git on: %d worktrees (median round) / %d worktrees, %d agents beating %s", z.worktrees, z.memWorktrees, z.memWorktrees, z.memFor),
			fmt.Sprintf("%.1f MB (%.1f anonymous) / %.1f MB (%.1f anonymous): %.0f KiB anonymous a worktree more; worktrees tracked %.0f (bound %d)",
				mib(med.rss.totalKiB), mib(med.rss.anonKiB), mib(mem.rss.totalKiB), mib(mem.rss.anonKiB), per, mem.gitStats["tracked"], gitscan.DefaultMaxTracked),
			"bounded at 200 worktrees (figure)", nil)
	}
	if z.goBench {
		return b.mergeBench(ctx)
	}
	return nil
}

// overlapRounds builds the repository and its worktrees and runs the
// rounds: git off and git on by turns, then (z.memWorktrees) one git-on
// round over more worktrees, without probes, for the memory figure.
func (b *bench) overlapRounds(ctx context.Context, z overlapSizes) (ons, offs []obRound, mem *obRound, err error) {
	dir, err := filepath.EvalSymlinks(b.tmp)
	if err != nil {
		return nil, nil, nil, err
	}
	repo := filepath.Join(dir, "overlaps", "main")
	t0 := time.Now()
	if err := makeRepo(ctx, repo, z.files); err != nil {
		return nil, nil, nil, err
	}
	add := addWorktrees
	if z.clones {
		add = addClones
	}
	wts, err := add(ctx, repo, 0, z.worktrees)
	if err != nil {
		return nil, nil, nil, err
	}
	fmt.Fprintf(os.Stderr, "hallbench: overlaps: %d files, %d %s ready in %s\n", z.files, len(wts), z.sides(), time.Since(t0).Round(time.Second))
	// The worktrees' 500,000 files are still being written back: the
	// first round would time their flush (a git-off round had a p99 of
	// 31 ms against 3–4 ms in the others).
	if err := exec.CommandContext(ctx, "sync").Run(); err != nil {
		fmt.Fprintf(os.Stderr, "hallbench: overlaps: sync: %v\n", err)
	}
	rotation := 0
	for r := 0; r < z.rounds; r++ {
		for _, git := range []bool{false, true} {
			res, err := b.obRound(ctx, wts, git, 2*r+boolInt(git), z, &rotation)
			if err != nil {
				return nil, nil, nil, err
			}
			if git {
				ons = append(ons, res)
			} else {
				offs = append(offs, res)
			}
		}
	}
	if z.memWorktrees > z.worktrees {
		more, err := addWorktrees(ctx, repo, z.worktrees, z.memWorktrees)
		if err != nil {
			return nil, nil, nil, err
		}
		z2 := z
		z2.cycles = 0
		res, err := b.obRound(ctx, append(slices.Clone(wts), more...), true, 2*z.rounds, z2, &rotation)
		if err != nil {
			return nil, nil, nil, err
		}
		mem = &res
	}
	return ons, offs, mem, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// obRound runs one round on a fresh Hall: the agents start their
// sessions, beat for a two-second warm-up, edit their own files alone for
// z.steady (the steady phase, its hook calls timed apart), then z.cycles
// probe cycles while the Hall's CPU is read; the round ends with the
// Hall's memory and metrics.
func (b *bench) obRound(ctx context.Context, wts []string, git bool, round int, z overlapSizes, rotation *int) (obRound, error) {
	side := map[bool]string{true: "on", false: "off"}[git]
	fmt.Fprintf(os.Stderr, "hallbench: overlaps: round %d, git %s, %d agents\n", round, side, len(wts))
	root := b.newRoot(fmt.Sprintf("overlaps-%d-git-%s", round, side))
	var args []string
	if !git {
		// A git that is not there: the Hall runs as it does without a
		// usable git, overlaps of the hooks' observed files only.
		args = append(args, "--git", filepath.Join(b.tmp, "no-such-git"))
	} else if b.o.gitPriority != "" {
		args = append(args, "--git-priority", b.o.gitPriority)
	}
	h, err := b.startHall(ctx, root, args...)
	if err != nil {
		return obRound{}, err
	}
	defer h.stop()
	res := obRound{git: git, times: &hookTimes{}}
	watch := &probeWatch{url: h.url}
	agents := make([]*obAgent, len(wts))
	for i, wt := range wts {
		a := newObAgent(i, round, wt, h.url, res.times)
		a.heard = func(ans []byte, at time.Time) { watch.heard(a, ans, at) }
		if err := a.start(ctx); err != nil {
			return res, err
		}
		agents[i] = a
	}
	actx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Add(1)
		go func() { defer wg.Done(); a.run(actx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); watch.run(actx) }()
	stop := func() { cancel(); wg.Wait() }
	defer stop()

	sleepCtx(ctx, 2*time.Second)
	if z.cycles > 0 {
		res.times.setSteady(true)
		sleepCtx(ctx, z.steady)
		res.times.setSteady(false)
	}
	pid := h.cmd.Process.Pid
	c0, err := procCPU(pid)
	if err != nil {
		return res, err
	}
	t0 := time.Now()
	if z.cycles == 0 {
		sleepCtx(ctx, z.memFor)
	}
	for c := 0; c < z.cycles && ctx.Err() == nil; c++ {
		res.probes = append(res.probes, probeCycle(actx, agents, watch, *rotation, z)...)
		*rotation++
	}
	c1, err := procCPU(pid)
	if err != nil {
		return res, err
	}
	res.elapsed = time.Since(t0)
	res.cpuSelf, res.cpuKids = c1.self-c0.self, c1.children-c0.children
	if res.rss, err = residentOf(pid); err != nil {
		return res, err
	}
	if res.gitStats, err = gitMetrics(h.url); err != nil {
		return res, err
	}
	stop()
	res.reads = watch.reads
	return res, ctx.Err()
}

// probeCycle pairs every agent with the partner pairing gives for
// rotation and runs one probe a pair, the pairs started stagger apart in
// all, half of them conflicts; it returns when every probe's window has
// passed and its files are written back.
func probeCycle(ctx context.Context, agents []*obAgent, watch *probeWatch, rotation int, z overlapSizes) []*probe {
	pairs := pairing(len(agents), rotation)
	base := privateFiles * len(agents) // the agents' own files come first
	span := z.files - base
	ps := make([]*probe, len(pairs))
	var wg sync.WaitGroup
	for k, pr := range pairs {
		file := base + (rotation*len(pairs)+k)%span
		p := &probe{a: agents[pr[0]], b: agents[pr[1]], rel: repoFileRel(file), conflict: k%2 == 0}
		ps[k] = p
		watch.add(p)
		rng := rand.New(rand.NewPCG(uint64(rotation), uint64(k)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !sleepCtx(ctx, z.stagger*time.Duration(k)/time.Duration(len(pairs))) {
				return
			}
			// Conflict: both sides change line 5. Clean: lines 3 and
			// 26, far enough apart for git to merge them.
			lineA, lineB := 5, 5
			if !p.conflict {
				lineA, lineB = 3, fileLines-4
			}
			_ = p.a.edit(ctx, p.rel, fileContent(file, map[int]string{lineA: "// side a: " + p.a.session}), nil)
			if !sleepCtx(ctx, time.Duration(500+rng.IntN(2000))*time.Millisecond) {
				return
			}
			_ = p.b.edit(ctx, p.rel, fileContent(file, map[int]string{lineB: "// side b: " + p.b.session}), func(at time.Time) {
				watch.mu.Lock()
				p.second = at
				watch.mu.Unlock()
			})
			watch.mu.Lock()
			second := p.second
			watch.mu.Unlock()
			if !sleepCtx(ctx, time.Until(second.Add(z.window))) {
				return
			}
			orig := fileContent(file, nil)
			_ = p.a.edit(ctx, p.rel, orig, nil)
			_ = p.b.edit(ctx, p.rel, orig, nil)
		}()
	}
	wg.Wait()
	watch.done(ps)
	return ps
}

// cpuTimes are a process's CPU, its own and its waited-for children's.
type cpuTimes struct{ self, children time.Duration }

// procCPU reads /proc/PID/stat: utime and stime (the process), cutime and
// cstime (its children it waited for: the Hall's git processes).
func procCPU(pid int) (cpuTimes, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTimes{}, err
	}
	return parseStatCPU(string(b))
}

// clockTick is the kernel's USER_HZ, 100 on every Linux the bench runs on.
const clockTick = 10 * time.Millisecond

func parseStatCPU(stat string) (cpuTimes, error) {
	// The command name, in parentheses, may hold spaces: fields count from
	// after its closing one. utime is the 14th field, the 12th after it.
	i := strings.LastIndexByte(stat, ')')
	f := strings.Fields(stat[i+1:])
	if i < 0 || len(f) < 15 {
		return cpuTimes{}, fmt.Errorf("unreadable stat %q", stat)
	}
	var v [4]int64
	for k := range v {
		n, err := strconv.ParseInt(f[11+k], 10, 64)
		if err != nil {
			return cpuTimes{}, fmt.Errorf("stat field %d: %w", 14+k, err)
		}
		v[k] = n
	}
	return cpuTimes{self: time.Duration(v[0]+v[1]) * clockTick, children: time.Duration(v[2]+v[3]) * clockTick}, nil
}

// gitMetrics reads the Hall's hall_gitscan_* metrics, by name without the
// prefix.
func gitMetrics(url string) (map[string]float64, error) {
	return hallMetrics(url, "gitscan")
}

// hallMetrics reads the Hall's metrics of one family (hall_<family>_*),
// by name without the prefix.
func hallMetrics(url, family string) (map[string]float64, error) {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	prefix := metrics.Namespace + "_" + family + "_"
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if rest, found := strings.CutPrefix(name, prefix); found && ok {
			if v, err := strconv.ParseFloat(val, 64); err == nil {
				out[rest] = v
			}
		}
	}
	return out, sc.Err()
}

// overlapRows adds the scenario's figures.
func (b *bench) overlapRows(z overlapSizes, ons, offs []obRound) {
	var git, anyEv, told []time.Duration
	var total, conflicts, missed, toldMissed int
	for _, r := range ons {
		for _, p := range r.probes {
			if p.second.IsZero() {
				continue
			}
			total++
			if p.seenGit.IsZero() {
				missed++
			} else {
				git = append(git, p.seenGit.Sub(p.second))
			}
			if !p.seenAny.IsZero() {
				anyEv = append(anyEv, p.seenAny.Sub(p.second))
			}
			if p.conflict {
				conflicts++
				for _, t := range []time.Time{p.toldA, p.toldB} {
					if t.IsZero() {
						toldMissed++
					} else {
						told = append(told, t.Sub(p.second))
					}
				}
			}
		}
	}
	p99 := pct(git, 0.99)
	priority := b.o.gitPriority
	if priority == "" {
		priority = "the default"
	}
	b.add(fmt.Sprintf("overlap with git's answer: second side's change → /api/presences lists the file, git on both sides, merge predicted; %d %s of %d files, %d agents, a cycle's pairs started over %s, --git-priority %s: p50 / p99 / max", z.worktrees, z.sides(), z.files, z.worktrees, z.stagger, priority),
		fmt.Sprintf("%.0f / %.0f / %.0f ms (%d probes, %d conflicts, %d clean; %d not within %s)", pct(git, 0.5), p99, pct(git, 1), total, conflicts, total-conflicts, missed, z.window),
		"p99 ≤ 2 s", pass(total > 0 && missed == 0 && p99 <= 2000))
	b.add("the same overlap as the hooks observed it (before git's answer): p50 / p99",
		fmt.Sprintf("%.0f / %.0f ms (%d of %d)", pct(anyEv, 0.5), pct(anyEv, 0.99), len(anyEv), total), "", nil)
	b.add("a conflict told in each side's own next hook answer (the agent's 1–2 s between tool calls included): p50 / p99",
		fmt.Sprintf("%.0f / %.0f ms (%d sides; %d not told within the window)", pct(told, 0.5), pct(told, 0.99), len(told), toldMissed), "", nil)

	// Hook latency, on against off: in steady work (the agents' own edits
	// alone) and while the probes open and close overlaps.
	pre := func(h *hookTimes) []time.Duration { return h.pre }
	post := func(h *hookTimes) []time.Duration { return h.post }
	steadyPre := func(h *hookTimes) []time.Duration { return h.steadyPre }
	steadyPost := func(h *hookTimes) []time.Duration { return h.steadyPost }
	for _, ev := range []struct {
		name string
		of   func(*hookTimes) []time.Duration
	}{
		{fmt.Sprintf("PreToolUse (Edit), steady work (%s of the agents' own edits, before the probes)", z.steady), steadyPre},
		{fmt.Sprintf("PostToolUse (Edit), steady work (%s)", z.steady), steadyPost},
		{"PreToolUse (Edit), while the probes open and close overlaps", pre},
		{"PostToolUse (Edit: the beat that reports the change), while the probes run", post},
	} {
		// Each side's calls pooled over its rounds: a round's p99 is its
		// slowest ten or twenty calls, and on this machine it moved by up
		// to 6.9× from one git-off round to the next; the rounds' own
		// ratios are given beside, as the spread.
		var on, off []time.Duration
		var r99, off99 []float64
		errs := 0
		for i := range min(len(ons), len(offs)) {
			a, c := ev.of(ons[i].times), ev.of(offs[i].times)
			if len(a) == 0 || len(c) == 0 {
				continue
			}
			on, off = append(on, a...), append(off, c...)
			r99, off99 = append(r99, pct(a, 0.99)/pct(c, 0.99)), append(off99, pct(c, 0.99))
			errs += ons[i].times.errors + offs[i].times.errors
		}
		if len(r99) == 0 {
			continue
		}
		r50, ratio99 := pct(on, 0.5)/pct(off, 0.5), pct(on, 0.99)/pct(off, 0.99)
		b.add(fmt.Sprintf("HTTP hook %s, %d agents: git on / git off, p50 and p99 of %d rounds' calls by turns", ev.name, z.worktrees, len(r99)),
			fmt.Sprintf("p50 %.2f / %.2f ms (on ÷ off %.2f×), p99 %.2f / %.2f ms (%.2f×; by round %s, their median %.2f×; the git-off rounds' own p99 %.2f–%.2f ms); %d calls, %d errors",
				pct(on, 0.5), pct(off, 0.5), r50, pct(on, 0.99), pct(off, 0.99), ratio99, rangeF(r99), medianF(r99), slices.Min(off99), slices.Max(off99), len(on)+len(off), errs),
			"unchanged (p50 and p99 on ÷ off ≤ 1.2×)", pass(r50 <= 1.2 && ratio99 <= 1.2 && errs == 0))
	}

	// CPU per minute: the Hall's own, on and off; git's children, on.
	perMin := func(d, over time.Duration) float64 { return d.Seconds() / over.Minutes() }
	var selfOn, selfOff, kids, scans, scanMs, merges, hits []float64
	for _, r := range ons {
		selfOn = append(selfOn, perMin(r.cpuSelf, r.elapsed))
		kids = append(kids, perMin(r.cpuKids, r.elapsed))
		s := r.gitStats
		scans = append(scans, s["scans_total"])
		if s["scans_total"] > 0 {
			scanMs = append(scanMs, 1000*s["scan_seconds_total"]/s["scans_total"])
		}
		merges, hits = append(merges, s["merge_checks_total"]), append(hits, s["merge_cache_hits_total"])
	}
	for _, r := range offs {
		selfOff = append(selfOff, perMin(r.cpuSelf, r.elapsed))
	}
	if len(selfOn) > 0 && len(selfOff) > 0 {
		scanner := medianF(selfOn) - medianF(selfOff) + medianF(kids)
		b.add(fmt.Sprintf("the scanner's CPU per minute, %d agents (Hall's own CPU on − off, + its git children's, from /proc/PID/stat), median of rounds", z.worktrees),
			fmt.Sprintf("%.1f CPU-s/min (%.0f %% of a core): Hall %.1f on / %.1f off, git children %.1f", scanner, 100*scanner/60, medianF(selfOn), medianF(selfOff), medianF(kids)), "reported", nil)
		b.add("scans a round (git status and diff of one worktree) and their mean time; merges predicted / answered from the cache",
			fmt.Sprintf("%.0f scans, %.0f ms each; %.0f merges / %.0f cache hits (median round)", medianF(scans), medianF(scanMs), medianF(merges), medianF(hits)), "", nil)
	}
}

// mergeBench runs internal/gitscan's merge benchmarks: the scanner's
// whole prediction for one pair (two snapshots from the scans' lists and
// git merge-tree), the same with snapshots of the whole working tree, and
// git merge-tree alone by hand on the same pair's snapshots.
func (b *bench) mergeBench(ctx context.Context) error {
	out, err := goBench(ctx, "^Benchmark(PredictMerge|PredictMergeWholeTree|MergeTreeByHand)$", "./internal/gitscan/")
	if err != nil {
		return err
	}
	re := regexp.MustCompile(`Benchmark(PredictMerge|PredictMergeWholeTree|MergeTreeByHand)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)
	per := map[string][]time.Duration{}
	for _, l := range strings.Split(out, "\n") {
		if m := re.FindStringSubmatch(l); m != nil {
			ns, _ := strconv.ParseFloat(m[2], 64)
			per[m[1]] = append(per[m[1]], time.Duration(ns))
		}
	}
	if len(per["PredictMerge"]) == 0 || len(per["PredictMergeWholeTree"]) == 0 || len(per["MergeTreeByHand"]) == 0 {
		return fmt.Errorf("no merge benchmark results in:\n%s", out)
	}
	pm, whole, mt := median(per["PredictMerge"]), median(per["PredictMergeWholeTree"]), median(per["MergeTreeByHand"])
	b.add(fmt.Sprintf("merge prediction per pair (two snapshots from the scans' lists + git merge-tree) / git merge-tree --write-tree by hand, same pair, median of %d; with snapshots of the whole tree (git add -A)", len(per["PredictMerge"])),
		fmt.Sprintf("%s / %s (%.1f×); %s", fmtDur(pm), fmtDur(mt), float64(pm)/float64(mt), fmtDur(whole)), "compared", nil)
	return nil
}

// goBench runs a package's Go benchmarks quietly (five counts) and
// returns their output.
func goBench(ctx context.Context, pattern, pkg string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-bench", pattern, "-count", "5", pkg)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go test -bench %s %s: %w", pattern, pkg, err)
	}
	return string(out), nil
}

func medianF(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func rangeF(v []float64) string {
	return fmt.Sprintf("%.2f–%.2f×", slices.Min(v), slices.Max(v))
}

func medianBy(rs []obRound, key func(obRound) float64) obRound {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(x, y obRound) int {
		switch {
		case key(x) < key(y):
			return -1
		case key(x) > key(y):
			return 1
		}
		return 0
	})
	return s[len(s)/2]
}
