package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// pushedSizes size the pushed scenario (issue #44).
type pushedSizes struct {
	files    int           // files in the generated repository
	interval time.Duration // the short --remote-interval of the many rounds
	rounds   int           // rounds at interval
	// defaultInterval is the Hall's default --remote-interval, of the
	// idle figure and defaultRounds (a test's is shorter).
	defaultInterval time.Duration
	defaultRounds   int
	idle            time.Duration // the idle figure's window
	branches        int           // active branches of the store figure
}

// pushedSizesFor is the published run's sizes, from the flags, or a
// smoke run's.
func pushedSizesFor(o options) pushedSizes {
	if o.quick {
		return pushedSizes{files: 2000, interval: o.pushedInterval, rounds: 5, defaultInterval: remotewatch.DefaultInterval, idle: 2 * time.Minute, branches: 20}
	}
	return pushedSizes{files: 10000, interval: o.pushedInterval, rounds: o.pushedRounds, defaultInterval: remotewatch.DefaultInterval,
		defaultRounds: o.pushedDefaultRounds, idle: o.pushedIdle, branches: o.pushedBranches}
}

// pushedResult is what the scenario measured.
type pushedResult struct {
	short, long             []time.Duration // push → the hook answer naming the branch, per round heard
	shortMissed, longMissed int
	shortGit, longGit       map[string]int // git processes by kind over the rounds
	idleFrom, idleTo        time.Time
	idleGit                 map[string]int
	idleLooks, idleFetch    float64       // the Hall's own counters over the window
	firstLook               time.Duration // Hall start → health lists every active branch
	firstLookGit            map[string]int
	store, remotesDir       int64 // du -sb of the store, of <root>/remotes
	storeObj, mirrorObj     countObjects
	mirror                  int64 // du -sb of a mirror clone
}

// pushed: the issue #44 figures. A bare remote of a generated ~10,000
// file repository, a clone where an agent has an uncommitted change to
// a file, another clone that pushes branches. Measured: the time from a
// branch's push (changing the agent's lines) to the agent's next hook
// answer naming it, at a short --remote-interval over many rounds and at
// the default over a few; the git processes an idle watch starts over
// ten minutes, by kind, counted by a git of the bench's own (--git); the
// Hall's store of the remote with 200 active branches beside a full
// clone.
func (b *bench) pushed(ctx context.Context) error {
	z := pushedSizesFor(b.o)
	res, err := b.pushedFigures(ctx, z)
	if err != nil {
		return err
	}
	b.pushedRows(z, res)
	return nil
}

// pushedWorld is the scenario's repositories.
type pushedWorld struct {
	remote, agent, mate string // the bare remote, the agent's clone, the pushing clone
	files               int
	target              int // the file the agent changes, and each round's branch too
}

// newPushedWorld makes the remote (a bare clone of a generated
// repository, serving filters and any object asked by id as GitHub
// does) and its two clones.
func (b *bench) newPushedWorld(ctx context.Context, files int) (*pushedWorld, error) {
	dir, err := filepath.EvalSymlinks(b.tmp)
	if err != nil {
		return nil, err
	}
	dir = filepath.Join(dir, "pushed")
	seed, remote := filepath.Join(dir, "seed"), filepath.Join(dir, "shop.git")
	t0 := time.Now()
	if err := makeRepo(ctx, seed, files); err != nil {
		return nil, err
	}
	for _, args := range [][]string{{"clone", "-q", "--bare", seed, remote}, {"-C", remote, "config", "uploadpack.allowFilter", "true"}, {"-C", remote, "config", "uploadpack.allowAnySHA1InWant", "true"}} {
		if err := git(ctx, "", args...); err != nil {
			return nil, err
		}
	}
	clones, err := addClones(ctx, remote, 0, 2)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "hallbench: pushed: %d files, a bare remote and 2 clones ready in %s\n", files, time.Since(t0).Round(time.Second))
	return &pushedWorld{remote: remote, agent: clones[0], mate: clones[1], files: files, target: files - 1}, nil
}

// pushedHall is one Hall of the scenario, its git counted, and the
// agent in the agent's clone, its change to the target file made.
type pushedHall struct {
	h     *proc
	root  string
	log   string // the counting git's
	agent *obAgent
	start time.Time
}

func (b *bench) startPushedHall(ctx context.Context, w *pushedWorld, name string, n int, interval time.Duration) (*pushedHall, error) {
	p := &pushedHall{root: b.newRoot("pushed-" + name), log: filepath.Join(b.tmp, "pushed-git-"+name+".log")}
	wrapper, err := writeGitWrapper(filepath.Join(b.tmp, "pushed-git-"+name), p.log)
	if err != nil {
		return nil, err
	}
	p.start = time.Now()
	if p.h, err = b.startHall(ctx, p.root, "--git", wrapper, "--remote-interval", interval.String()); err != nil {
		return nil, err
	}
	p.agent = newObAgent(0, n, w.agent, p.h.url, &hookTimes{})
	if err = p.agent.start(ctx); err == nil {
		err = p.agent.edit(ctx, repoFileRel(w.target), fileContent(w.target, map[int]string{5: agentLine}), nil)
	}
	if err != nil {
		p.h.stop()
		return nil, err
	}
	return p, nil
}

// work is the agent at work: one Edit of the target file, its own
// change kept and another line of it changed (the k-th time), as in
// steady work. (A live presence that changed a file once stays a side
// while it beats, reading or not: the watch lives while such a
// presence is in a worktree it serves.)
func (p *pushedHall) work(ctx context.Context, w *pushedWorld, k int) error {
	return p.agent.edit(ctx, repoFileRel(w.target), fileContent(w.target, map[int]string{5: agentLine, 10: fmt.Sprintf("// the agent's edit %d", k)}), nil)
}

// agentLine is the agent's own change to the target file's line 5.
const agentLine = "// the agent's own change"

// read is one Read tool call of the agent's (PostToolUse), its answer.
func (p *pushedHall) read(ctx context.Context, w *pushedWorld) ([]byte, error) {
	abs := filepath.Join(w.agent, filepath.FromSlash(repoFileRel(w.target)))
	return p.agent.hook(ctx, "PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": abs},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": abs, "numLines": fileLines}}, "tool_use_id": "toolu_read"})
}

// waitRemote waits until health lists one remote for which ok holds.
func waitRemote(ctx context.Context, url string, timeout time.Duration, ok func(contract.HealthRemote) bool) error {
	deadline := time.Now().Add(timeout)
	var last []contract.HealthRemote
	for time.Now().Before(deadline) {
		if h, err := health(url); err == nil {
			last = h.Remotes
			if len(h.Remotes) == 1 && ok(h.Remotes[0]) {
				return nil
			}
		}
		if !sleepCtx(ctx, 100*time.Millisecond) {
			return ctx.Err()
		}
	}
	return fmt.Errorf("the watch's health did not come as awaited within %s: remotes %+v", timeout, last)
}

// pollEvery is how often the agent's hook is called while a round waits
// for its answer: an agent's tool calls come about this often.
const pollEvery = 250 * time.Millisecond

// round pushes branch (from main, changing the agent's line of the
// target file: a conflict) from the pushing clone and calls the agent's
// hook every pollEvery until an answer names the branch, or until
// timeout; then deletes the branch on the remote. It answers the time
// from the push's completion to that answer, 0 when none named it.
func (w *pushedWorld) round(ctx context.Context, p *pushedHall, branch string, timeout time.Duration) (time.Duration, error) {
	rel := repoFileRel(w.target)
	if err := git(ctx, w.mate, "checkout", "-q", "-B", branch, "origin/main"); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(w.mate, filepath.FromSlash(rel)), fileContent(w.target, map[int]string{5: "// pushed on " + branch}), 0o644); err != nil {
		return 0, err
	}
	if err := git(ctx, w.mate, "commit", "-q", "-am", branch); err != nil {
		return 0, err
	}
	if err := git(ctx, w.mate, "push", "-q", "origin", branch); err != nil {
		return 0, err
	}
	pushed := time.Now()
	var heard time.Duration
	for time.Since(pushed) < timeout && ctx.Err() == nil {
		ans, err := p.read(ctx, w)
		if err != nil {
			return 0, err
		}
		if bytes.Contains(ans, []byte(branch)) {
			heard = time.Since(pushed)
			break
		}
		sleepCtx(ctx, pollEvery)
	}
	return heard, git(ctx, w.mate, "push", "-q", "origin", "--delete", branch)
}

// rounds runs n rounds on p, each after an edit of the agent's (work)
// and a pause of a random part of the interval (the push then falls at
// any phase of the watch's looks), and
// answers the times heard, the rounds not heard, and the git processes
// the Hall started over them.
func (w *pushedWorld) rounds(ctx context.Context, p *pushedHall, n int, interval time.Duration, tag string) ([]time.Duration, int, map[string]int, error) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(interval)))
	var heard []time.Duration
	missed := 0
	from := time.Now()
	for r := range n {
		if err := p.work(ctx, w, r); err != nil {
			return nil, 0, nil, err
		}
		if !sleepCtx(ctx, time.Duration(rng.Int64N(int64(interval)))) {
			return nil, 0, nil, ctx.Err()
		}
		d, err := w.round(ctx, p, fmt.Sprintf("p44-%s-%03d", tag, r), interval+30*time.Second)
		if err != nil {
			return nil, 0, nil, err
		}
		fmt.Fprintf(os.Stderr, "hallbench: pushed: --remote-interval %s, round %d: heard after %s\n", interval, r, d.Round(time.Millisecond))
		if d == 0 {
			missed++
		} else {
			heard = append(heard, d)
		}
	}
	runs, err := readGitLog(p.log)
	return heard, missed, gitCounts(runs, from, time.Now()), err
}

// pushedFigures builds the world and runs the three Halls: the many
// rounds at the short interval; the idle watch and a few rounds at the
// default; the store after the first look at z.branches active branches.
func (b *bench) pushedFigures(ctx context.Context, z pushedSizes) (pushedResult, error) {
	var res pushedResult
	w, err := b.newPushedWorld(ctx, z.files)
	if err != nil {
		return res, err
	}
	looked := func(r contract.HealthRemote) bool { return r.LastGoodMs != 0 && r.Error == "" }

	// The many rounds.
	p, err := b.startPushedHall(ctx, w, "short", 1, z.interval)
	if err != nil {
		return res, err
	}
	err = waitRemote(ctx, p.h.url, 2*time.Minute, looked)
	if err == nil {
		res.short, res.shortMissed, res.shortGit, err = w.rounds(ctx, p, z.rounds, z.interval, "s")
	}
	p.h.stop()
	if err != nil {
		return res, err
	}

	// The idle watch, then rounds at the default interval.
	if p, err = b.startPushedHall(ctx, w, "default", 2, z.defaultInterval); err != nil {
		return res, err
	}
	err = b.pushedIdle(ctx, w, p, z, &res)
	if err == nil && z.defaultRounds > 0 {
		res.long, res.longMissed, res.longGit, err = w.rounds(ctx, p, z.defaultRounds, z.defaultInterval, "d")
	}
	p.h.stop()
	if err != nil {
		return res, err
	}

	// The store.
	if err := w.pushBranches(ctx, z.branches); err != nil {
		return res, err
	}
	if p, err = b.startPushedHall(ctx, w, "store", 3, z.interval); err != nil {
		return res, err
	}
	err = waitRemote(ctx, p.h.url, 5*time.Minute, func(r contract.HealthRemote) bool { return looked(r) && r.Branches == z.branches })
	res.firstLook = time.Since(p.start)
	p.h.stop()
	if err != nil {
		return res, err
	}
	runs, err := readGitLog(p.log)
	if err != nil {
		return res, err
	}
	res.firstLookGit = gitCounts(runs, p.start, p.start.Add(res.firstLook))
	return res, b.pushedStore(ctx, w, p, &res)
}

// pushedIdle waits for the watch's first look (and a few seconds, for
// what follows it), then counts the git processes the Hall starts over
// z.idle with nothing moving on the remote, and the Hall's own counters
// of looks and fetches beside them. The agent edits its file every 30 s
// meanwhile (work): the watch lives as long as a worktree it serves has
// a side.
func (b *bench) pushedIdle(ctx context.Context, w *pushedWorld, p *pushedHall, z pushedSizes, res *pushedResult) error {
	if err := waitRemote(ctx, p.h.url, 2*time.Minute, func(r contract.HealthRemote) bool { return r.LastGoodMs != 0 && r.Error == "" }); err != nil {
		return err
	}
	if !sleepCtx(ctx, 5*time.Second) {
		return ctx.Err()
	}
	m0, err := hallMetrics(p.h.url, "remotewatch")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hallbench: pushed: idle for %s, load average %s\n", z.idle, loadAverage())
	res.idleFrom = time.Now()
	for k := 0; time.Since(res.idleFrom) < z.idle; k++ {
		if err := p.work(ctx, w, k); err != nil {
			return err
		}
		if !sleepCtx(ctx, min(30*time.Second, z.idle-time.Since(res.idleFrom))) {
			return ctx.Err()
		}
	}
	res.idleTo = time.Now()
	m1, err := hallMetrics(p.h.url, "remotewatch")
	if err != nil {
		return err
	}
	res.idleLooks, res.idleFetch = m1["looks_total"]-m0["looks_total"], m1["fetches_total"]-m0["fetches_total"]
	runs, err := readGitLog(p.log)
	res.idleGit = gitCounts(runs, res.idleFrom, res.idleTo)
	return err
}

// activeFiles is how many files each active branch of the store figure
// changes.
const activeFiles = 3

// pushBranches makes n branches in the pushing clone, each from main
// changing activeFiles files (never the agent's), committed 90 minutes
// apart from now back (200 span 12.5 days: all within the 14 active
// days), by one git fast-import, and pushes them all at once.
func (w *pushedWorld) pushBranches(ctx context.Context, n int) error {
	main, err := gitOut(ctx, w.mate, nil, "rev-parse", "origin/main")
	if err != nil {
		return err
	}
	var s bytes.Buffer
	now := time.Now().Unix()
	for i := range n {
		msg := fmt.Sprintf("active branch %d", i)
		fmt.Fprintf(&s, "commit refs/heads/active-%03d\ncommitter hallbench <bench@localhost> %d +0000\ndata %d\n%s\nfrom %s\n", i, now-int64(i)*90*60, len(msg), msg, main)
		for k := range activeFiles {
			f := (i*activeFiles + k) % w.target // the files before the agent's
			content := fileContent(f, map[int]string{5: "// " + msg})
			fmt.Fprintf(&s, "M 100644 inline %s\ndata %d\n%s\n", repoFileRel(f), len(content), content)
		}
	}
	if _, err := gitOut(ctx, w.mate, &s, "fast-import", "--quiet"); err != nil {
		return err
	}
	return git(ctx, w.mate, "push", "-q", "origin", "refs/heads/active-*:refs/heads/active-*")
}

// countObjects is git count-objects -v's answer.
type countObjects struct {
	loose, inPack, packs int64
	looseKiB, packKiB    int64
}

func readCountObjects(ctx context.Context, dir string) (countObjects, error) {
	out, err := gitOut(ctx, dir, nil, "count-objects", "-v")
	if err != nil {
		return countObjects{}, err
	}
	var c countObjects
	fields := map[string]*int64{"count": &c.loose, "size": &c.looseKiB, "in-pack": &c.inPack, "packs": &c.packs, "size-pack": &c.packKiB}
	for _, l := range strings.Split(out, "\n") {
		k, v, _ := strings.Cut(l, ": ")
		if p := fields[k]; p != nil {
			*p, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return c, nil
}

// duBytes is du -sb's answer for dir: the bytes of every file and
// directory in it.
func duBytes(ctx context.Context, dir string) (int64, error) {
	out, err := exec.CommandContext(ctx, "du", "-sb", dir).Output()
	if err != nil {
		return 0, fmt.Errorf("du -sb %s: %w", dir, err)
	}
	f := strings.Fields(string(out))
	if len(f) == 0 {
		return 0, fmt.Errorf("du -sb %s answered %q", dir, out)
	}
	return strconv.ParseInt(f[0], 10, 64)
}

// pushedStore measures the store p's Hall keeps of the remote (its one
// <root>/remotes/*.git) and the whole remotes directory beside a full
// clone of the remote (git clone --mirror --no-local: one pack, as a
// clone over the network has, not the remote's own files hard-linked).
func (b *bench) pushedStore(ctx context.Context, w *pushedWorld, p *pushedHall, res *pushedResult) error {
	stores, err := filepath.Glob(filepath.Join(p.root, "remotes", "*.git"))
	if err != nil || len(stores) != 1 {
		return fmt.Errorf("want one store under %s/remotes, got %v (%v)", p.root, stores, err)
	}
	mirror := filepath.Join(b.tmp, "pushed-mirror.git")
	if err := git(ctx, "", "clone", "-q", "--mirror", "--no-local", w.remote, mirror); err != nil {
		return err
	}
	for _, m := range []struct {
		dir  string
		size *int64
		objs *countObjects
	}{{stores[0], &res.store, &res.storeObj}, {filepath.Join(p.root, "remotes"), &res.remotesDir, nil}, {mirror, &res.mirror, &res.mirrorObj}} {
		if *m.size, err = duBytes(ctx, m.dir); err != nil {
			return err
		}
		if m.objs != nil {
			if *m.objs, err = readCountObjects(ctx, m.dir); err != nil {
				return err
			}
		}
	}
	return nil
}

// pushedRows adds the scenario's figures.
func (b *bench) pushedRows(z pushedSizes, res pushedResult) {
	heardRow := func(iv time.Duration, n int, heard []time.Duration, missed int, counts map[string]int) {
		if n == 0 {
			return
		}
		sec := func(q float64) float64 { return pct(heard, q) / 1000 }
		of := func(q float64) float64 { return sec(q) / iv.Seconds() }
		b.add(fmt.Sprintf("a push → the overlapping agent's next hook answer names the branch (HTTP hook polled every %s; a branch changing the agent's uncommitted lines, pushed from another clone to a bare remote of %d files), --remote-interval %s, %d rounds at random phases: p50 / p99 / max",
			pollEvery, z.files, iv, n),
			fmt.Sprintf("%.1f / %.1f / %.1f s (%.2f / %.2f / %.2f × the interval; %d not heard within the interval + 30 s); git the Hall ran over the rounds (%d pushes, %d deletions): %s",
				sec(0.5), sec(0.99), sec(1), of(0.5), of(0.99), of(1), missed, n, n, fmtCounts(counts)),
			fmt.Sprintf("≤ the interval + 5 s (%s)", iv+5*time.Second), pass(missed == 0 && len(heard) > 0 && sec(1) <= (iv+5*time.Second).Seconds()))
	}
	heardRow(z.interval, z.rounds, res.short, res.shortMissed, res.shortGit)
	heardRow(z.defaultInterval, z.defaultRounds, res.long, res.longMissed, res.longGit)

	window := res.idleTo.Sub(res.idleFrom)
	want := window.Seconds() / z.defaultInterval.Seconds()
	looks, fetches := res.idleGit["ls-remote --heads"], res.idleGit["fetch"]
	b.add(fmt.Sprintf("an idle watch: the git processes the Hall started over %s, nothing moving on the remote, --remote-interval %s, one remote, an agent editing its file every 30 s (counted by a git of the bench's own, --git), by kind", window.Round(time.Second), z.defaultInterval),
		fmt.Sprintf("%s (expected: %.1f looks, no fetch; the Hall's own counters say %.0f looks, %.0f fetches)", fmtCounts(res.idleGit), want, res.idleLooks, res.idleFetch),
		"one ls-remote per remote per interval, no fetch", pass(fetches == 0 && float64(looks) >= want-1 && float64(looks) <= want+1))

	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	b.add(fmt.Sprintf("the Hall's store of the remote (%d files, %d active branches of %d files each, committed over the last %.1f days), after its first look fetched them all (--filter=blob:none), beside a full clone (git clone --mirror --no-local)",
		z.files, z.branches, activeFiles, float64(z.branches-1)*1.5/24),
		fmt.Sprintf("store %.2f MiB (du -sb; %d objects in %d packs, %d KiB, %d loose), all of <registry-root>/remotes %.2f MiB; full clone %.2f MiB (%d objects, %d KiB packed): the store is %.0f %% of it",
			mib(res.store), res.storeObj.inPack, res.storeObj.packs, res.storeObj.packKiB, res.storeObj.loose, mib(res.remotesDir), mib(res.mirror), res.mirrorObj.inPack, res.mirrorObj.packKiB, 100*float64(res.store)/float64(res.mirror)),
		"reported, against a full clone", nil)
	b.add(fmt.Sprintf("the first look at %d active branches: the Hall's start → health lists them all; git processes the Hall ran meanwhile", z.branches),
		fmt.Sprintf("%.1f s; %s", res.firstLook.Seconds(), fmtCounts(res.firstLookGit)), "", nil)
}
