package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/contract/schema/schematest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/hooktest"
	"github.com/hall-dev/hall/internal/natsstore"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
)

// cart is src/checkout/cart.go of n numbered lines, some replaced.
func cart(replace map[int]string) string {
	var b strings.Builder
	b.WriteString("package cart\n")
	for i := 2; i <= 20; i++ {
		if s, ok := replace[i]; ok {
			fmt.Fprintln(&b, s)
			continue
		}
		fmt.Fprintf(&b, "// line %d\n", i)
	}
	return b.String()
}

// teamClones makes a bare repository (the team's remote) holding
// src/checkout/cart.go and two clones of it, one per host: ana's and bob's.
func teamClones(t *testing.T) (ana, bob string) {
	t.Helper()
	dir := t.TempDir()
	seed := filepath.Join(dir, "seed")
	gittest.Init(t, seed)
	gittest.WriteFile(t, filepath.Join(seed, "src", "checkout", "cart.go"), cart(nil))
	gittest.CommitAll(t, seed, "init")
	remote := filepath.Join(dir, "shop.git")
	gittest.Git(t, dir, "clone", "-q", "--bare", seed, remote)
	ana, bob = filepath.Join(dir, "ana", "shop"), filepath.Join(dir, "bob", "shop")
	for _, c := range []string{ana, bob} {
		gittest.Git(t, dir, "clone", "-q", "--no-local", remote, c)
	}
	return ana, bob
}

// cloneFingerprint hashes what the Halls must never change in a clone:
// every file of its git directory (objects, refs, config, the index and
// its modification time) and of its working tree.
func cloneFingerprint(t *testing.T, clone string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(clone, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(clone, p)
		fmt.Fprintf(h, "%s\x00%v\x00", rel, info.Mode())
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
			if rel == filepath.Join(".git", "index") {
				fmt.Fprintf(h, "\x00%d", info.ModTime().UnixNano())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// hostHall starts a Hall on the NATS server at url naming its host.
func hostHall(t *testing.T, url, host, share string) *Main {
	t.Helper()
	return MustOpenHall(t, Config{Store: url, TTL: time.Minute, GitInterval: 10 * time.Millisecond, HostName: host, ShareChanges: share})
}

// hosts is two hosts' Halls in content mode over ana's and bob's clones
// (teamClones), both of which changed line 5 of src/checkout/cart.go.
type hosts struct {
	ana, bob, bobCart string
	anaBefore         string // ana's clone's fingerprint before the Halls started
	alpha, bravo      *Main
	beats             func() // each agent's Edit beat into its own Hall
}

// hostsInConflict starts alpha's and bravo's Halls on the NATS server at
// url over two clones in conflict.
func hostsInConflict(t *testing.T, url string) hosts {
	t.Helper()
	h := hosts{}
	h.ana, h.bob = teamClones(t)
	h.bobCart = filepath.Join(h.bob, "src", "checkout", "cart.go")
	gittest.WriteFile(t, filepath.Join(h.ana, "src", "checkout", "cart.go"), cart(map[int]string{5: "// ana's line 5"}))
	gittest.WriteFile(t, h.bobCart, cart(map[int]string{5: "// bob's line 5"}))
	h.anaBefore = cloneFingerprint(t, h.ana)
	h.alpha, h.bravo = hostHall(t, url, "alpha", "content"), hostHall(t, url, "bravo", "content")
	h.beats = func() {
		beatHall(t, h.alpha.URL(), editBeat("claude-ana", h.ana))
		beatHall(t, h.bravo.URL(), editBeat("claude-bob", h.bob))
	}
	return h
}

// editBeat is the beat of an agent that edited src/checkout/cart.go in its clone,
// its brain the clone (as a hook completes it): the two clones are one
// repository by their remote (the repository identity).
func editBeat(agent, clone string) contract.BeatRequest {
	b := beatOf(agent, clone, clone)
	b.Tool, b.Touched = "Edit", []string{filepath.Join(clone, "src", "checkout", "cart.go")}
	return b
}

// overlapAt waits, beating both agents into their own Halls, until the
// Hall m lists one overlap that ok accepts, and returns it.
func overlapAt(t *testing.T, m *Main, beats func(), what string, ok func(contract.Overlap) bool) contract.Overlap {
	t.Helper()
	start := time.Now()
	defer func() { t.Logf("%s at %s: %s", what, m.Config.HostName, time.Since(start)) }()
	var o contract.Overlap
	eventually.True(t, natsWait, what+" at "+m.Config.HostName, func() bool {
		beats()
		r := contractNow(t, m.URL()+"/api/presences")
		if len(r.Overlaps) != 1 {
			return false
		}
		o = r.Overlaps[0]
		return ok(o)
	})
	rosterOverlaps(t, schematest.FromHall(t, m.URL(), schematest.Strict), m) // the contract's schema holds
	return o
}

// boardKeys lists the keys of the shared bucket; nil when it does not
// exist.
func boardKeys(t *testing.T, url string) map[string][]byte {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	kv, err := js.KeyValue(ctx, natsstore.DefaultBoardBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	keys, err := kv.Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return map[string][]byte{}
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, k := range keys {
		if e, err := kv.Get(ctx, k); err == nil {
			out[k] = e.Value()
		}
	}
	return out
}

// farSide is the side of o on the other host, and this Hall's own.
func farSide(o contract.Overlap) (far, here contract.OverlapSide) {
	if o.A.Host != "" {
		return o.A, o.B
	}
	return o.B, o.A
}

// TestOverlapAcrossHostsPathsOnly: two Halls naming two hosts (alpha,
// bravo) share a NATS store, each with its own registry; ana's agent
// beats alpha from ana's clone, bob's beats bravo from bob's, and both
// changed line 5 of src/checkout/cart.go. Both Halls list the overlap across
// hosts, each naming the other's host on its side, git's files from the
// far side's record; in paths mode (the default) the merge is unknown
// because the Halls share paths only, and no blob leaves either machine:
// the shared bucket does not even exist. Neither clone changes.
//
// Before hosts were named, each Hall took the far clone (a directory on
// this machine too) for its own and predicted the merge with its own
// git, reading a worktree its record said was another host's.
func TestOverlapAcrossHostsPathsOnly(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	ana, bob := teamClones(t)
	gittest.WriteFile(t, filepath.Join(ana, "src", "checkout", "cart.go"), cart(map[int]string{5: "// ana's line 5"}))
	gittest.WriteFile(t, filepath.Join(bob, "src", "checkout", "cart.go"), cart(map[int]string{5: "// bob's line 5"}))
	before := []string{cloneFingerprint(t, ana), cloneFingerprint(t, bob)}
	alpha, bravo := hostHall(t, srv.URL(), "alpha", ""), hostHall(t, srv.URL(), "bravo", "")
	beats := func() {
		beatHall(t, alpha.URL(), editBeat("claude-ana", ana))
		beatHall(t, bravo.URL(), editBeat("claude-bob", bob))
	}
	for _, m := range []*Main{alpha, bravo} {
		o := overlapAt(t, m, beats, "the overlap across hosts, git's files on both sides", func(o contract.Overlap) bool {
			far, here := farSide(o)
			return far.Git == contract.GitRecord && here.Git == contract.GitOK
		})
		far, here := farSide(o)
		wantFar, wantFarWT := "bravo", bob
		if m == bravo {
			wantFar, wantFarWT = "alpha", ana
		}
		if o.Across != contract.AcrossHost || far.Host != wantFar || far.Worktree != wantFarWT || here.Host != "" {
			t.Errorf("at %s: across %q, far side %+v, here %+v; want across host, the far side on %s in %s", m.Config.HostName, o.Across, far, here, wantFar, wantFarWT)
		}
		if o.Merge != contract.MergeUnknown || o.MergeReason != contract.MergeReasonPathsOnly || o.Basis != contract.BasisPaths || o.Verdict != contract.VerdictOverlap {
			t.Errorf("at %s: merge %q reason %q basis %q verdict %q; want unknown, paths_only, paths, overlap", m.Config.HostName, o.Merge, o.MergeReason, o.Basis, o.Verdict)
		}
		if len(o.Files) != 1 || o.Files[0].Path != "src/checkout/cart.go" {
			t.Errorf("at %s: files %+v, want src/checkout/cart.go", m.Config.HostName, o.Files)
		}
	}
	r := contractNow(t, alpha.URL()+"/api/presences")
	hosts := map[string]string{}
	for _, p := range r.Presences {
		hosts[p.AgentID] = p.Host
	}
	if hosts["claude-ana"] != "alpha" || hosts["claude-bob"] != "bravo" {
		t.Errorf("records' hosts %v, want ana's alpha and bob's bravo", hosts)
	}
	if keys := boardKeys(t, srv.URL()); len(keys) != 0 {
		t.Errorf("in paths mode the shared bucket holds %d entries, want none", len(keys))
	}
	// Through the real hook path: an agent of ana's clone hears the
	// overlap, naming bob's agent, bravo and bob's clone, and why no
	// merge is predicted.
	var heard string
	eventually.True(t, natsWait, "ana's hook to hear bob's conflict on bravo", func() bool {
		heard += string(hookPaths[0].call(t, alpha, "claude", hooktest.Moved(t, hooktest.ClaudeCode, "post-tool-use-edit.json", ana, ""), "warn"))
		return strings.Contains(heard, "claude-bob on bravo")
	})
	for _, want := range []string{" in " + bob, "no merge prediction: this Hall shares paths only"} {
		if !strings.Contains(heard, want) {
			t.Errorf("ana's hook heard %q, want %q", heard, want)
		}
	}

	if got := []string{cloneFingerprint(t, ana), cloneFingerprint(t, bob)}; !slices.Equal(got, before) {
		t.Error("a clone changed under the Halls")
	}
}

// TestOverlapAcrossHostsContent: the same two hosts in content mode.
// Both changed line 5: alpha (its name sorts first) predicts a conflict
// with its own git from what bravo shipped (bob's HEAD and src/checkout/cart.go)
// and publishes it; bravo reads it, labelled with alpha's host. Then bob
// moves his change to line 15: clean, on both. Then bob commits without
// pushing and edits again: alpha's objects lack his HEAD, base_not_here.
// Then alpha stops: bravo's hooks still answer, and bob's next change
// waits on a verdict that alpha no longer gives (peer_verdict_pending).
// The bucket holds bob's blob and alpha's state, labelled; neither clone
// changes.
func TestOverlapAcrossHostsContent(t *testing.T) {
	srv := natstest.RunServer(t, 0)
	h := hostsInConflict(t, srv.URL())
	ana, bob, bobCart, alpha, bravo, beats := h.ana, h.bob, h.bobCart, h.alpha, h.bravo, h.beats
	merged := func(merge string) func(contract.Overlap) bool {
		return func(o contract.Overlap) bool { return o.Merge == merge }
	}

	// A conflict, predicted by alpha's git, read by bravo.
	for _, m := range []*Main{alpha, bravo} {
		o := overlapAt(t, m, beats, "a conflict predicted across hosts", merged(contract.MergeConflict))
		if o.Verdict != contract.VerdictConflict || o.MergeHost != "alpha" || o.Basis != contract.BasisGit ||
			!slices.Equal(o.Conflicts, []string{"src/checkout/cart.go"}) || o.Across != contract.AcrossHost {
			t.Errorf("at %s: %+v; want a conflict in src/checkout/cart.go predicted by git on alpha", m.Config.HostName, o)
		}
	}
	// What the agent on alpha hears names the other side's host, clone
	// and agent, and whose git said so.
	resp := beatHall(t, alpha.URL(), editBeat("claude-ana", ana))
	r := contractNow(t, alpha.URL()+"/api/presences")
	line := contract.OverlapLine(resp.PresenceID, r.Overlaps[0])
	for _, want := range []string{"conflict: claude-bob on bravo ", " in " + bob + " changed src/checkout/cart.go", "; git on alpha predicts the merge conflicts in src/checkout/cart.go"} {
		if !strings.Contains(line, want) {
			t.Errorf("ana's line %q, want it to say %q", line, want)
		}
	}

	// hall watch at bravo prints it naming alpha and, under
	// --exit-on-conflict, ends with 4; the cockpit names the host too.
	code, out, stderr := runCLI(t, "", "watch", "--hall", bravo.URL(), "--exit-on-conflict")
	if code != 4 || !strings.Contains(out, "claude-ana on alpha") || !strings.Contains(out, "git on alpha predicts the merge conflicts") {
		t.Errorf("hall watch --exit-on-conflict at bravo: exit %d, stdout %q, stderr %q; want 4 and the conflict naming alpha", code, out, stderr)
	}
	if cockpit := getBody(t, bravo.URL()+"/api/cockpit", 16<<10); !strings.Contains(cockpit, "claude-ana on alpha") {
		t.Errorf("bravo's cockpit %q does not name alpha", cockpit)
	}

	// The bucket: bob's side carries his blob, ana's only its state.
	repository := r.Overlaps[0].Repository
	var sawBlob, sawState, sawVerdict bool
	for k, v := range boardKeys(t, srv.URL()) {
		var e struct {
			Kind, Host, Worktree, Repository, State, Head string
			PeerHost                                      string `json:"peer_host"`
			Files                                         []struct {
				Path string
				Data []byte
			}
		}
		if err := json.Unmarshal(v, &e); err != nil {
			t.Fatalf("entry %s: %v", k, err)
		}
		switch {
		case e.Kind == "side" && e.Host == "bravo":
			sawBlob = e.Worktree == bob && e.PeerHost == "alpha" && e.Repository == repository && e.Repository != "" && e.State != "" && e.Head != "" &&
				len(e.Files) == 1 && e.Files[0].Path == "src/checkout/cart.go" && string(e.Files[0].Data) == cart(map[int]string{5: "// bob's line 5"}) || sawBlob
		case e.Kind == "side" && e.Host == "alpha":
			if len(e.Files) != 0 {
				t.Errorf("alpha, which predicts, shipped content: %s", v)
			}
			sawState = e.Worktree == ana && e.State != "" || sawState
		case e.Kind == "verdict":
			sawVerdict = e.Host == "alpha" || sawVerdict
		}
	}
	if !sawBlob || !sawState || !sawVerdict {
		t.Errorf("bucket: bob's blob %v, ana's state %v, alpha's verdict %v; want all", sawBlob, sawState, sawVerdict)
	}
	if n := metricValue(t, bravo.URL(), "hall_peers_blobs_shipped_total"); n < 1 {
		t.Errorf("bravo's blobs shipped: %d, want at least 1", n)
	}
	if n := metricValue(t, alpha.URL(), "hall_peers_verdicts_shared_total"); n < 1 {
		t.Errorf("alpha's verdicts shared: %d, want at least 1", n)
	}
	if n := metricValue(t, bravo.URL(), "hall_peers_verdicts_read_total"); n < 1 {
		t.Errorf("bravo's verdicts read: %d, want at least 1", n)
	}

	// Bob moves to line 15: a clean merge.
	gittest.WriteFile(t, bobCart, cart(map[int]string{15: "// bob's line 15"}))
	for _, m := range []*Main{alpha, bravo} {
		o := overlapAt(t, m, beats, "a clean merge across hosts", merged(contract.MergeClean))
		if o.Verdict != contract.VerdictOverlap || o.MergeHost != "alpha" {
			t.Errorf("at %s: %+v; want clean, by git on alpha", m.Config.HostName, o)
		}
	}

	// Bob commits, never pushes, and edits again: his HEAD is not among
	// ana's objects.
	gittest.Git(t, bob, "commit", "-q", "-am", "bob's local commit")
	gittest.WriteFile(t, bobCart, cart(map[int]string{5: "// bob's line 5 again", 15: "// bob's line 15"}))
	for _, m := range []*Main{alpha, bravo} {
		overlapAt(t, m, beats, "base_not_here", func(o contract.Overlap) bool {
			return o.Merge == contract.MergeUnknown && o.MergeReason == contract.MergeReasonBaseNotHere
		})
	}

	// Alpha stops; bob changes again. Bravo's beats answer, and its
	// overlap says what it waits for.
	if err := alpha.Close(); err != nil {
		t.Fatal(err)
	}
	gittest.WriteFile(t, bobCart, cart(map[int]string{5: "// bob's line 5, third", 15: "// bob's line 15"}))
	o := overlapAt(t, bravo, func() { beatHall(t, bravo.URL(), editBeat("claude-bob", bob)) }, "waiting on the stopped peer", func(o contract.Overlap) bool {
		return o.Merge == contract.MergeUnknown && o.MergeReason == contract.MergeReasonPeerWaiting
	})
	if far, _ := farSide(o); far.Host != "alpha" {
		t.Errorf("far side %+v, want alpha's", far)
	}
	if cloneFingerprint(t, ana) != h.anaBefore {
		t.Error("ana's clone changed under the Halls")
	}
}
