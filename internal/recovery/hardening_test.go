package recovery_test

import (
	"context"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/recovery"
)

// hostileTree writes into the snapshot's own object directory a tree
// holding the snapshot's files and entries no worktree can hold
// (../outside.txt, .git/config, dir/../../up.txt), and makes it the
// snapshot's tree, as a hand-made index or a tampered store would.
func hostileTree(t *testing.T, store *recovery.Store, wt string, snap recovery.Snapshot) {
	t.Helper()
	objects := filepath.Join(store.Dir(), snap.ID, "objects")
	mktree := func(lines string) string {
		t.Helper()
		cmd := exec.Command("git", "-C", wt, "mktree")
		cmd.Env = append(os.Environ(), "GIT_OBJECT_DIRECTORY="+objects, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(snap.GitDir, "objects"))
		cmd.Stdin = strings.NewReader(lines)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("mktree: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	cmd := exec.Command("git", "-C", wt, "ls-tree", snap.Tree)
	cmd.Env = append(os.Environ(), "GIT_OBJECT_DIRECTORY="+objects, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(snap.GitDir, "objects"))
	top, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	blob := strings.Fields(git(t, wt, "ls-tree", "HEAD", "a.txt"))[2]
	leaf := mktree("100644 blob " + blob + "\toutside.txt\n100644 blob " + blob + "\tconfig\n100644 blob " + blob + "\tup.txt\n")
	up := mktree("040000 tree " + leaf + "\t..\n")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(top)), "\n") {
		if !strings.HasSuffix(l, "\tdir") {
			lines = append(lines, l)
		}
	}
	dir := mktree("040000 tree " + up + "\t..\n100644 blob " + blob + "\tx.txt\n100644 blob " + blob + "\ty.txt\n")
	lines = append(lines, "040000 tree "+leaf+"\t..", "040000 tree "+leaf+"\t.git", "040000 tree "+dir+"\tdir")
	tree := mktree(strings.Join(lines, "\n") + "\n")
	rec := filepath.Join(store.Dir(), snap.ID, "snapshot.json")
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["tree"] = tree
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreRefusesEntriesOutside: a snapshot's tree holding
// ../outside.txt, .git/config and dir/../../up.txt: a restore (of all,
// of ".", with --force, with --to) writes none of them, says which it
// refused, and restores the rest; --diff says them refused (issue 40,
// item 5).
func TestRestoreRefusesEntriesOutside(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	write(t, filepath.Join(wt, "new.txt"), "new\n", 0o644)
	store := openStore(t, recovery.Limits{}, nil)
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	hostileTree(t, store, wt, snap)
	parent := filepath.Dir(wt)
	before := state(t, filepath.Join(wt, ".git", "config"))
	wantRefused := []string{"../config", "../outside.txt", "../up.txt", ".git/config", ".git/outside.txt", ".git/up.txt", "dir/../../config", "dir/../../outside.txt", "dir/../../up.txt"}
	to := t.TempDir()
	for _, opt := range []recovery.RestoreOptions{{}, {Paths: []string{"."}, Force: true}, {To: filepath.Join(to, "in1")}, {To: filepath.Join(to, "in2"), Paths: []string{"."}}} {
		os.Remove(filepath.Join(wt, "new.txt"))
		res, err := store.Restore(ctx, snap.ID, opt)
		if err != nil {
			t.Fatalf("%+v: %v", opt, err)
		}
		var refused []string
		for _, r := range res.Refused {
			refused = append(refused, r.Path)
		}
		slices.Sort(refused)
		if !slices.Equal(refused, wantRefused) {
			t.Errorf("%+v: refused %q, want %q", opt, refused, wantRefused)
		}
		if !slices.Contains(res.Restored, "new.txt") {
			t.Errorf("%+v: restored %q, want new.txt among them", opt, res.Restored)
		}
		for _, p := range []string{filepath.Join(parent, "outside.txt"), filepath.Join(parent, "up.txt"), filepath.Join(parent, "config"), filepath.Join(to, "outside.txt"), filepath.Join(to, "up.txt"), filepath.Join(wt, ".git", "outside.txt")} {
			if _, err := os.Lstat(p); !os.IsNotExist(err) {
				t.Errorf("%+v wrote %s", opt, p)
			}
		}
		if got := state(t, filepath.Join(wt, ".git", "config")); got != before {
			t.Errorf("%+v wrote .git/config", opt)
		}
	}
	diffs, err := store.Diff(ctx, snap.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range diffs {
		if d.State == recovery.DiffRefused {
			n++
		}
	}
	if n != len(wantRefused) {
		t.Errorf("--diff: %+v, want %d refused", diffs, len(wantRefused))
	}
}

// TestDeadHallsSnapshotFinishedByRestore: a Hall killed right after a
// hook answered "saved" leaves <id>.tmp; the store hall restore opens
// (NoPrune, at once, not a minute later) finishes it, lists it and
// restores it (issue 40, item 10).
func TestDeadHallsSnapshotFinishedByRestore(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	store := openStore(t, recovery.Limits{}, nil)
	open := holdNext(store)
	defer open()
	write(t, filepath.Join(wt, "a.txt"), "lost at the crash\n", 0o644)
	want := state(t, filepath.Join(wt, "a.txt"))
	snap := takeShell(t, store, wt, "git checkout .")
	// The crash: the store as the killed Hall left it, its locks free.
	dead := filepath.Join(t.TempDir(), "recovery")
	if out, err := exec.Command("cp", "-a", store.Dir(), dead).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dead, snap.ID+".tmp")); err != nil {
		t.Fatalf("no unfinished snapshot to find: %v", err)
	}
	git(t, wt, "checkout", "-q", ".")
	restore, err := recovery.Open(ctx, dead, newRunner(t), recovery.Limits{NoPrune: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := restore.List(ctx, recovery.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != snap.ID || len(list[0].Files) != 1 {
		t.Fatalf("listed %+v, want the dead Hall's snapshot %s with its file", list, snap.ID)
	}
	if _, err := restore.Restore(ctx, snap.ID, recovery.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := state(t, filepath.Join(wt, "a.txt")); got != want {
		t.Errorf("a.txt: %s, want %s", got, want)
	}
	// The live Hall's own snapshot is not taken from it.
	other, err := recovery.Open(ctx, store.Dir(), newRunner(t), recovery.Limits{NoPrune: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Get(ctx, snap.ID); err == nil {
		t.Error("a snapshot its live Hall is finishing was finished by another store")
	}
	open()
	if err := store.Wait(ctx, snap.ID); err != nil {
		t.Errorf("the live Hall's own finishing: %v", err)
	}
}

// writeIndex writes dir's index by hand (version 2, stat data zero), as
// git's own tools would refuse to: entries are "mode sha path" lines.
func writeIndex(t *testing.T, dir string, entries []string) {
	t.Helper()
	slices.SortFunc(entries, func(a, b string) int {
		return strings.Compare(strings.SplitN(a, " ", 3)[2], strings.SplitN(b, " ", 3)[2])
	})
	var b []byte
	b = append(b, "DIRC"...)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint32(b, uint32(len(entries)))
	for _, e := range entries {
		f := strings.SplitN(e, " ", 3)
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		sha, _ := hex.DecodeString(f[1])
		start := len(b)
		b = append(b, make([]byte, 24)...) // ctime, mtime, dev, ino
		b = binary.BigEndian.AppendUint32(b, uint32(mode))
		b = append(b, make([]byte, 12)...) // uid, gid, size
		b = append(b, sha...)
		b = binary.BigEndian.AppendUint16(b, uint16(len(f[2])))
		b = append(b, f[2]...)
		b = append(b, 0)
		for (len(b)-start)%8 != 0 {
			b = append(b, 0)
		}
	}
	sum := sha1.Sum(b)
	b = append(b, sum[:]...)
	if err := os.WriteFile(filepath.Join(dir, ".git", "index"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotRefusesEntriesOutside: a hand-made index entry
// ../outside.txt (git's write-tree takes it) is hashed into the
// snapshot's tree; the snapshot's record lists it as refused, not among
// its files, and a restore writes it nowhere (issue 40, item 5).
func TestSnapshotRefusesEntriesOutside(t *testing.T) {
	ctx := context.Background()
	_, wt := newRepo(t, false)
	blob := strings.Fields(git(t, wt, "ls-tree", "HEAD", "a.txt"))[2]
	var entries []string
	for _, l := range strings.Split(strings.TrimSpace(git(t, wt, "ls-files", "-s")), "\n") {
		f := strings.Fields(l) // mode sha stage\tpath
		entries = append(entries, f[0]+" "+f[1]+" "+strings.SplitN(l, "\t", 2)[1])
	}
	entries = append(entries, "100644 "+blob+" ../outside.txt")
	writeIndex(t, wt, entries)
	// Present, or the snapshot's git add takes the entry for deleted.
	outside := filepath.Join(filepath.Dir(wt), "outside.txt")
	write(t, outside, "outside the worktree\n", 0o644)
	store := openStore(t, recovery.Limits{}, nil)
	snap, err := store.Save(ctx, recovery.SaveRequest{Worktree: wt, Trigger: recovery.Trigger{Kind: recovery.TriggerCLI}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range snap.Files {
		if strings.Contains(f.Path, "..") {
			t.Errorf("the record lists %q among its files", f.Path)
		}
	}
	if len(snap.Refused) != 1 || snap.Refused[0].Path != "../outside.txt" {
		t.Errorf("the record refuses %+v, want ../outside.txt", snap.Refused)
	}
	if err := os.Remove(outside); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []recovery.RestoreOptions{{Force: true}, {Paths: []string{"."}, Force: true}} {
		res, err := store.Restore(ctx, snap.ID, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Refused) != 1 {
			t.Errorf("%+v: refused %+v, want ../outside.txt", opt, res.Refused)
		}
		if _, err := os.Lstat(outside); !os.IsNotExist(err) {
			t.Fatalf("%+v wrote ../outside.txt", opt)
		}
	}
}
