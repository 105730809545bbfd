package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/natsstore"
)

// The machines scenario (issue #43, across two Halls): two machines
// simulated on this one. One bare repository is the team's shared
// remote; each machine has its clone of it and its own Hall (its own
// registry root and --host-name, alpha and bravo), both on one
// in-process NATS JetStream server, as cmd/hall's
// TestOverlapAcrossHosts* set them up. An agent beats in each clone
// through its Hall's HTTP hook as the overlaps scenario's agents do
// (obAgent: an edit of a file of its own every 1–2 s). Each round, ana's
// agent (on alpha) changes line 5 of a file no round used before, and
// 0.5–2.5 s later bob's agent (on bravo) changes the same line. The
// clock starts when bob's file is written (his PostToolUse beat follows
// at once) and stops, for each Hall, when its /api/presences lists the
// overlap with the file (paths mode) or git's conflict verdict on it
// (content mode). Then both write the file back, and the round ends
// when neither Hall lists an overlap any more, so no round meets the
// last one's overlap, said-once line or cached verdict. Every put into
// the hall-changes bucket is read off the wire (a plain NATS
// subscription on the bucket's subjects) and tallied by round: the
// bytes shipped per overlap.

// machinesHosts are the two Halls' host names: alpha sorts first, so
// alpha's Hall predicts and bravo's ships its side's content.
var machinesHosts = [2]string{"alpha", "bravo"}

// machinesSizes size the machines scenario.
type machinesSizes struct {
	files  int           // files in the generated repository
	rounds int           // overlaps made in each mode, one after another
	window time.Duration // a round's wait for both Halls' view, from the second change
	settle time.Duration // a round's wait for the overlap to go once both wrote the file back
}

// machinesSizesFor is the published run's sizes (the overlaps
// scenario's 10,000-file repository), or a smoke run's.
func machinesSizesFor(quick bool) machinesSizes {
	if quick {
		return machinesSizes{files: 2000, rounds: 4, window: 15 * time.Second, settle: 20 * time.Second}
	}
	return machinesSizes{files: 10000, rounds: 50, window: 15 * time.Second, settle: 20 * time.Second}
}

// machinesRound is one overlap made across the two Halls: the probe as
// each Hall's watch saw it (seen[0] alpha's, seen[1] bravo's).
type machinesRound struct {
	seen [2]probe
	// labelled: both Halls said the overlap is across hosts, named the
	// far side's host, and the merge as the mode has it (paths: unknown,
	// paths_only; content: conflict, predicted on alpha), read within
	// two seconds after both listed it; relabelled: not at the first read
	// (content: a side's new state, from its agent's own edits, leaves
	// the verdict across hosts pending until it is predicted again).
	labelled, relabelled bool
	settled              bool       // the overlap went from both Halls within the settle time
	start                time.Time  // ana's change began
	marker               []byte     // bob's line, in his file's content when shipped
	size                 int        // bob's file, as he changed it
	puts                 []boardPut // into hall-changes from start to the round's end
}

// machinesRun is one mode's rounds.
type machinesRun struct {
	mode   string
	rounds []machinesRound
	peers  [2]map[string]float64 // each Hall's hall_peers_* at the end
	errors int                   // hook calls that failed
}

// machines: the issue #43 figures across two Halls, paths mode then
// content mode, each on a fresh NATS server and fresh Halls.
func (b *bench) machines(ctx context.Context) error {
	z := machinesSizesFor(b.o.quick)
	clones, err := b.machinesRepo(ctx, z.files)
	if err != nil {
		return err
	}
	var runs []machinesRun
	for n, mode := range []string{"paths", "content"} {
		run, err := b.machinesMode(ctx, clones, mode, n, z)
		if err != nil {
			return err
		}
		runs = append(runs, run)
	}
	b.machinesRows(z, runs)
	return nil
}

// machinesRepo makes the team's remote, a bare repository of files
// generated files, and one clone of it per machine (addClones: each on a
// branch of its own, origin the bare repository, so both are one
// repository by their remote), and returns the clones.
func (b *bench) machinesRepo(ctx context.Context, files int) ([]string, error) {
	dir, err := filepath.EvalSymlinks(b.tmp)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	seed, remote := filepath.Join(dir, "machines", "seed"), filepath.Join(dir, "machines", "shop.git")
	if err := makeRepo(ctx, seed, files); err != nil {
		return nil, err
	}
	if err := git(ctx, "", "clone", "-q", "--bare", seed, remote); err != nil {
		return nil, err
	}
	clones, err := addClones(ctx, remote, 0, len(machinesHosts))
	if err != nil {
		return nil, err
	}
	if err := exec.CommandContext(ctx, "sync").Run(); err != nil {
		fmt.Fprintf(os.Stderr, "hallbench: machines: sync: %v\n", err)
	}
	fmt.Fprintf(os.Stderr, "hallbench: machines: %d files, a bare remote and %d clones ready in %s\n", files, len(clones), time.Since(t0).Round(time.Second))
	return clones, nil
}

// machinesMode runs z.rounds overlaps across two Halls sharing mode
// (--share-changes), the n-th mode run: its sessions and files are its
// own.
func (b *bench) machinesMode(ctx context.Context, clones []string, mode string, n int, z machinesSizes) (machinesRun, error) {
	fmt.Fprintf(os.Stderr, "hallbench: machines: %s mode, %d rounds\n", mode, z.rounds)
	run := machinesRun{mode: mode}
	ns, err := b.startNATS("nats-machines-" + mode)
	if err != nil {
		return run, err
	}
	defer ns.Shutdown()
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		return run, fmt.Errorf("nats client: %w", err)
	}
	defer nc.Close()
	tap, err := tapBoard(nc)
	if err != nil {
		return run, err
	}
	var halls [2]*proc
	for i, host := range machinesHosts {
		root := b.newRoot(fmt.Sprintf("machines-%s-%s", mode, host))
		h, err := b.startHall(ctx, root, "--store="+ns.ClientURL(), "--host-name="+host, "--share-changes="+mode)
		if err != nil {
			return run, err
		}
		defer h.stop()
		halls[i] = h
	}

	times := &hookTimes{}
	var agents [2]*obAgent
	var watches [2]*probeWatch
	for i := range agents {
		a := newObAgent(i, n, clones[i], halls[i].url, times)
		w := &probeWatch{url: halls[i].url}
		a.heard = func(ans []byte, at time.Time) { w.heard(a, ans, at) }
		if err := a.start(ctx); err != nil {
			return run, err
		}
		agents[i], watches[i] = a, w
	}
	actx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range agents {
		wg.Add(2)
		go func() { defer wg.Done(); agents[i].run(actx) }()
		go func() { defer wg.Done(); watches[i].run(actx) }()
	}
	defer func() { cancel(); wg.Wait() }()
	// Both Halls hold both agents' records, scanned and beaten again
	// (their git answers on them), before the first round.
	for i, h := range halls {
		if err := waitPresences(ctx, h.url, len(agents), 30*time.Second); err != nil {
			return run, fmt.Errorf("%s: %w", machinesHosts[i], err)
		}
	}
	sleepCtx(ctx, 3*time.Second)

	rng := rand.New(rand.NewPCG(uint64(n), 43))
	for r := 0; r < z.rounds && ctx.Err() == nil; r++ {
		file := privateFiles*len(agents) + n*z.rounds + r
		if file >= z.files {
			return run, fmt.Errorf("round %d: file %d past the repository's %d", r, file, z.files)
		}
		round, err := machinesOverlap(ctx, agents, watches, halls, mode, file, z, rng)
		if err != nil {
			return run, err
		}
		round.puts = tap.since(round.start)
		run.rounds = append(run.rounds, round)
	}
	for i, h := range halls {
		if run.peers[i], err = hallMetrics(h.url, "peers"); err != nil {
			return run, err
		}
	}
	times.mu.Lock()
	run.errors = times.errors
	times.mu.Unlock()
	return run, ctx.Err()
}

// machinesOverlap is one round on file: ana's change, bob's, both
// Halls' view timed, both changes written back, the overlap gone.
func machinesOverlap(ctx context.Context, agents [2]*obAgent, watches [2]*probeWatch, halls [2]*proc, mode string, file int, z machinesSizes, rng *rand.Rand) (machinesRound, error) {
	rel := repoFileRel(file)
	var ps [2]*probe
	for i, w := range watches {
		ps[i] = &probe{a: agents[0], b: agents[1], rel: rel, conflict: true}
		w.add(ps[i])
	}
	round := machinesRound{start: time.Now()}
	if err := agents[0].edit(ctx, rel, fileContent(file, map[int]string{5: fmt.Sprintf("// ana on alpha, file %d: %s", file, agents[0].session)}), nil); err != nil {
		return round, err
	}
	sleepCtx(ctx, time.Duration(500+rng.IntN(2000))*time.Millisecond)
	round.marker = fmt.Appendf(nil, "// bob on bravo, file %d: %s", file, agents[1].session)
	changed := fileContent(file, map[int]string{5: string(round.marker)})
	round.size = len(changed)
	err := agents[1].edit(ctx, rel, changed, func(at time.Time) {
		for i, w := range watches {
			w.mu.Lock()
			ps[i].second = at
			w.mu.Unlock()
		}
	})
	if err != nil {
		return round, err
	}
	second := watches[0].read(ps[0]).second
	for time.Since(second) < z.window && sleepCtx(ctx, 20*time.Millisecond) {
		if machinesSeen(mode, watches[0].read(ps[0]), watches[1].read(ps[1])) {
			break
		}
	}
	for until := time.Now().Add(2 * time.Second); ; {
		if round.labelled = machinesLabelled(halls, mode, rel); round.labelled || time.Now().After(until) || !sleepCtx(ctx, 50*time.Millisecond) {
			break
		}
		round.relabelled = true
	}
	orig := fileContent(file, nil)
	for _, a := range agents {
		if err := a.edit(ctx, rel, orig, nil); err != nil {
			return round, err
		}
	}
	deadline := time.Now().Add(z.settle)
	for !round.settled && time.Now().Before(deadline) && sleepCtx(ctx, 100*time.Millisecond) {
		round.settled = overlapsListed(halls[0].url) == 0 && overlapsListed(halls[1].url) == 0
	}
	for i, w := range watches {
		round.seen[i] = w.read(ps[i])
		w.done([]*probe{ps[i]})
	}
	return round, nil
}

// machinesSeen reports whether both Halls' views are in, as the mode
// measures them: the overlap listed (paths); git's conflict verdict,
// with git's evidence on both sides' file, and each agent told in its
// own hook answer (content).
func machinesSeen(mode string, a, b probe) bool {
	if mode == "paths" {
		return !a.seenAny.IsZero() && !b.seenAny.IsZero()
	}
	return !a.seenGit.IsZero() && !b.seenGit.IsZero() && !a.toldA.IsZero() && !b.toldB.IsZero()
}

// machinesLabelled reads both Halls' overlaps on rel and reports whether
// each says it is across hosts, names the other Hall's host on the far
// side, and gives the merge the mode gives: unknown for paths_only, or
// git's conflict on alpha in content mode.
func machinesLabelled(halls [2]*proc, mode, rel string) bool {
	for i, h := range halls {
		r, err := presencesOf(h.url)
		if err != nil {
			return false
		}
		k := slices.IndexFunc(r.Overlaps, func(o contract.Overlap) bool {
			return slices.ContainsFunc(o.Files, func(f contract.OverlapFile) bool { return f.Path == rel })
		})
		if k < 0 {
			return false
		}
		o := r.Overlaps[k]
		far := o.A
		if far.Host == "" {
			far = o.B
		}
		ok := o.Across == contract.AcrossHost && far.Host == machinesHosts[1-i]
		if mode == "paths" {
			ok = ok && o.Merge == contract.MergeUnknown && o.MergeReason == contract.MergeReasonPathsOnly
		} else {
			ok = ok && o.Merge == contract.MergeConflict && o.MergeHost == machinesHosts[0]
		}
		if !ok {
			return false
		}
	}
	return true
}

// presencesOf reads a Hall's roster.
func presencesOf(url string) (contract.PresencesResponse, error) {
	var r contract.PresencesResponse
	resp, err := http.Get(url + "/api/presences")
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	return r, json.NewDecoder(resp.Body).Decode(&r)
}

// overlapsListed is how many overlaps a Hall lists; -1 when it did not
// answer.
func overlapsListed(url string) int {
	r, err := presencesOf(url)
	if err != nil {
		return -1
	}
	return len(r.Overlaps)
}

// waitPresences waits until the Hall lists n presences.
func waitPresences(ctx context.Context, url string, n int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && sleepCtx(ctx, 50*time.Millisecond) {
		if r, err := presencesOf(url); err == nil && len(r.Presences) == n {
			return nil
		}
	}
	return fmt.Errorf("the Hall did not list %d presences in %s", n, timeout)
}

// boardPut is one entry put into the hall-changes bucket, as it went
// over the wire.
type boardPut struct {
	at    time.Time
	key   string
	kind  string // the key's first word: side, verdict, watch
	bytes int    // the entry's value
	// blobs and blobBytes are the file contents it carries (a side
	// entry's files[].data, decoded); data is those contents, joined.
	blobs, blobBytes int
	data             []byte
	merge            string // a verdict's merge: clean, conflict, unknown
}

// boardSubjects are the subjects a put into the bucket is published on
// ($KV.<bucket>.<key>, nats.go's jetstream KV).
var boardSubjects = "$KV." + natsstore.DefaultBoardBucket + "."

// boardPutOf reads one put: its key from the subject, its kind from the
// key, the file contents it carries from its value.
func boardPutOf(subject string, value []byte, at time.Time) boardPut {
	key := strings.TrimPrefix(subject, boardSubjects)
	kind, _, _ := strings.Cut(key, ".")
	p := boardPut{at: at, key: key, kind: kind, bytes: len(value)}
	var e struct {
		Merge string `json:"merge"`
		Files []struct {
			Data []byte `json:"data"`
		} `json:"files"`
	}
	if json.Unmarshal(value, &e) == nil {
		p.merge = e.Merge
		for _, f := range e.Files {
			if len(f.Data) > 0 {
				p.blobs++
				p.blobBytes += len(f.Data)
				p.data = append(p.data, f.Data...)
			}
		}
	}
	return p
}

// boardTap records every put into the bucket, from a subscription on
// its subjects: every Hall's, whatever it holds, before the bucket
// exists too.
type boardTap struct {
	mu   sync.Mutex
	puts []boardPut
}

func tapBoard(nc *nats.Conn) (*boardTap, error) {
	t := &boardTap{}
	_, err := nc.Subscribe(boardSubjects+">", func(m *nats.Msg) {
		if len(m.Data) == 0 {
			return // a delete, a purge or an expiry: nothing shipped
		}
		p := boardPutOf(m.Subject, m.Data, time.Now())
		t.mu.Lock()
		t.puts = append(t.puts, p)
		t.mu.Unlock()
	})
	if err == nil {
		err = nc.Flush()
	}
	if err != nil {
		return nil, fmt.Errorf("subscribe to the board's puts: %w", err)
	}
	return t, nil
}

// since is the puts at or after from.
func (t *boardTap) since(from time.Time) []boardPut {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []boardPut
	for _, p := range t.puts {
		if !p.at.Before(from) {
			out = append(out, p)
		}
	}
	return out
}

// contentSteps finds, in one content-mode round's puts, when the side
// that ships the second change was first published (its content holds
// marker, bob's line) and when the first conflict verdict after it was;
// zero where none was.
func contentSteps(puts []boardPut, marker []byte) (side, verdict time.Time) {
	for _, p := range puts {
		switch {
		case side.IsZero() && p.kind == "side" && bytes.Contains(p.data, marker):
			side = p.at
		case !side.IsZero() && p.kind == "verdict" && p.merge == "conflict":
			return side, p.at
		}
	}
	return side, time.Time{}
}

// boardTally sums puts by kind.
type boardTally struct {
	puts, bytes, blobs, blobBytes int
}

func tallyPuts(puts []boardPut) map[string]boardTally {
	out := map[string]boardTally{}
	for _, p := range puts {
		t := out[p.kind]
		t.puts++
		t.bytes += p.bytes
		t.blobs += p.blobs
		t.blobBytes += p.blobBytes
		out[p.kind] = t
	}
	return out
}

// machinesRows adds the scenario's figures.
func (b *bench) machinesRows(z machinesSizes, runs []machinesRun) {
	for _, run := range runs {
		if len(run.rounds) == 0 {
			b.add("across two Halls, "+run.mode+" mode", "no round ran", "", pass(false))
			continue
		}
		var both, alpha, bravo, any, git, told, shipped, predicted []time.Duration
		missed, unlabelled, relabelled, unsettled := 0, 0, 0, 0
		var perOverlap, blobPerOverlap, sizes []float64 // bytes
		kinds := map[string]boardTally{}
		for _, r := range run.rounds {
			a, c := r.seen[0], r.seen[1]
			ta, tb := a.seenAny, c.seenAny
			if run.mode == "content" {
				ta, tb = a.seenMerge, c.seenMerge
			}
			if ta.IsZero() || tb.IsZero() {
				missed++
			} else {
				alpha, bravo = append(alpha, ta.Sub(a.second)), append(bravo, tb.Sub(c.second))
				both = append(both, maxTime(ta, tb).Sub(a.second))
			}
			if !a.seenAny.IsZero() && !c.seenAny.IsZero() {
				any = append(any, maxTime(a.seenAny, c.seenAny).Sub(a.second))
			}
			if !a.seenGit.IsZero() && !c.seenGit.IsZero() {
				git = append(git, maxTime(a.seenGit, c.seenGit).Sub(a.second))
			}
			for _, t := range []time.Time{a.toldA, c.toldB} {
				if !t.IsZero() {
					told = append(told, t.Sub(a.second))
				}
			}
			if side, verdict := contentSteps(r.puts, r.marker); !side.IsZero() && !verdict.IsZero() {
				shipped, predicted = append(shipped, side.Sub(a.second)), append(predicted, verdict.Sub(a.second))
			}
			if !r.labelled {
				unlabelled++
			}
			if r.relabelled {
				relabelled++
			}
			if !r.settled {
				unsettled++
			}
			t := tallyPuts(r.puts)
			perOverlap = append(perOverlap, float64(t["side"].bytes+t["verdict"].bytes))
			blobPerOverlap = append(blobPerOverlap, float64(t["side"].blobBytes))
			sizes = append(sizes, float64(r.size))
			for k, v := range t {
				s := kinds[k]
				s.puts, s.bytes, s.blobs, s.blobBytes = s.puts+v.puts, s.bytes+v.bytes, s.blobs+v.blobs, s.blobBytes+v.blobBytes
				kinds[k] = s
			}
		}
		n := len(run.rounds)
		notes := fmt.Sprintf("%d rounds, a new file each; %d not within %s; %d not labelled as the mode says within 2 s, %d not at the first read; %d not gone within %s after both wrote it back; %d hook errors",
			n, missed, z.window, unlabelled, relabelled, unsettled, z.settle, run.errors)
		ok := n > 0 && missed == 0 && unlabelled == 0 && run.errors == 0
		if run.mode == "paths" {
			p99 := pct(both, 0.99)
			b.add(fmt.Sprintf("across two Halls, paths mode: bob's change on bravo → both Halls' /api/presences list the file in the overlap (across host, merge unknown: paths_only); %d-file repository, a clone each: p50 / p99 / max", z.files),
				fmt.Sprintf("%.0f / %.0f / %.0f ms (%s)", pct(both, 0.5), p99, pct(both, 1), notes), "≤ 1 s", pass(ok && p99 <= 1000))
			b.add("… each Hall alone: alpha (ana's, over NATS) / bravo (bob's own): p50 / p99",
				fmt.Sprintf("%.0f / %.0f ms; %.0f / %.0f ms", pct(alpha, 0.5), pct(alpha, 0.99), pct(bravo, 0.5), pct(bravo, 0.99)), "", nil)
			side, verdict, watch := kinds["side"], kinds["verdict"], kinds["watch"]
			var blobs int
			for _, v := range kinds {
				blobs += v.blobBytes
			}
			b.add(fmt.Sprintf("bytes into hall-changes over the %d overlaps, paths mode: side and verdict entries; file content", n),
				fmt.Sprintf("%d entries, %d bytes; %d bytes of content (the remote watch's own entries beside: %d puts, %d bytes, branch tips only)", side.puts+verdict.puts, side.bytes+verdict.bytes, blobs, watch.puts, watch.bytes),
				"no blob content (asserted)", pass(n > 0 && side.puts+verdict.puts == 0 && blobs == 0))
			continue
		}
		p99 := pct(both, 0.99)
		b.add(fmt.Sprintf("across two Halls, content mode: bob's change on bravo → both Halls list git's conflict (verdict conflict, the file among the conflicts, predicted on alpha); %d-file repository: p50 / p99 / max", z.files),
			fmt.Sprintf("%.0f / %.0f / %.0f ms (%s)", pct(both, 0.5), p99, pct(both, 1), notes), "p99 ≤ 5 s", pass(ok && p99 <= 5000))
		b.add("… each Hall alone: alpha (predicts) / bravo (reads alpha's verdict): p50 / p99",
			fmt.Sprintf("%.0f / %.0f ms; %.0f / %.0f ms", pct(alpha, 0.5), pct(alpha, 0.99), pct(bravo, 0.5), pct(bravo, 0.99)), "", nil)
		b.add("… the same overlap listed by both, before the verdict / with git's evidence on both sides' file too (bob's record carrying his scan): p50 / p99",
			fmt.Sprintf("%.0f / %.0f ms; %.0f / %.0f ms (%d of %d)", pct(any, 0.5), pct(any, 0.99), pct(git, 0.5), pct(git, 0.99), len(git), n), "", nil)
		b.add("… where the time goes: bob's change → bravo publishes his side with it (its scan, at the scanner's interval, then its sharer's round) / → alpha publishes git's verdict (its sharer's round and the merge): p50 / p99",
			fmt.Sprintf("%.0f / %.0f ms; %.0f / %.0f ms (%d of %d rounds; then bravo's round reads it)", pct(shipped, 0.5), pct(shipped, 0.99), pct(predicted, 0.5), pct(predicted, 0.99), len(shipped), n), "", nil)
		b.add("… the conflict told in each agent's own next hook answer (its 1–2 s between tool calls included): p50 / p99",
			fmt.Sprintf("%.0f / %.0f ms (%d of %d sides)", pct(told, 0.5), pct(told, 0.99), len(told), 2*n), "", nil)
		side, verdict := kinds["side"], kinds["verdict"]
		mean := func(t boardTally) float64 {
			if t.puts == 0 {
				return 0
			}
			return float64(t.bytes) / float64(t.puts)
		}
		b.add(fmt.Sprintf("bytes into hall-changes per overlap, content mode (every put from ana's change to the overlap's end, %d overlaps): p50 / max; file content of it", n),
			fmt.Sprintf("%.0f / %.0f bytes; content %.0f / %.0f bytes (bob's file %.0f bytes); %.1f puts an overlap: side entries %d × %.0f bytes (%d with content), verdicts %d × %.0f bytes; bravo's hall_peers_bytes_shipped_total %.0f",
				medianF(perOverlap), slices.Max(perOverlap), medianF(blobPerOverlap), slices.Max(blobPerOverlap), medianF(sizes),
				float64(side.puts+verdict.puts)/float64(max(n, 1)), side.puts, mean(side), side.blobs, verdict.puts, mean(verdict), run.peers[1]["bytes_shipped_total"]),
			"published", nil)
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
