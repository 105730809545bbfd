package gitscan

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A side on another host (issue 43 item 3) is what that host's Hall
// shipped of it: its HEAD and the content of the files in its overlap
// with a side here, as its snapshot holds them. This file reads the same
// of a side here (PeerFiles, for this Hall to ship) and predicts a merge
// with a shipped side (MergePeer): the shipped blobs are written into the
// scanner's scratch (git hash-object -w, the scratch's object directory),
// a tree is formed there from the side's HEAD with those files in place,
// and it is merged with the local side's snapshot as any pair is
// (PredictMerge). Nothing is written into the repository: not an object,
// not the index, not a ref.

// BaseNotHere is the code of MergePeer's error when the far side's HEAD
// is not among this repository's objects, nor the remote store's it was
// given (not pushed, or not fetched yet): no base, no prediction.
const BaseNotHere Code = "base_not_here"

// RemoteStore is a repository the Hall owns holding a remote's commits
// and trees, no blob (a watch store of package remotewatch, a blob:none
// partial clone): where MergePeer reads the far side's HEAD when this
// repository's objects lack it. Its objects are read as an alternate,
// never written by anything but its own git; the merge runs in it, so
// git fetches the blobs it needs from the remote into it (a partial
// clone's lazy fetch) with Auth (RunRemote).
type RemoteStore struct {
	Dir  string // the bare repository
	Auth Auth
}

// PeerFile is one file of a side as its snapshot holds it: its
// repository-relative path, its mode ("100644", "100755", "120000"; ""
// when the side deleted it) and its content (a blob, as git stores it).
type PeerFile struct {
	Path string `json:"path"`
	Mode string `json:"mode,omitempty"`
	Data []byte `json:"data,omitempty"`
}

// PeerContent is what a side on another host shipped: its HEAD (the
// snapshot's parent) and its files in the overlap.
type PeerContent struct {
	Head  string
	Files []PeerFile
}

// MaxPeerFiles is the most files PeerFiles reads and MergePeer takes.
const MaxPeerFiles = 100

// Snapshot returns the snapshot of a tracked worktree for its latest
// answer (taken now when there is none yet), as the scanner's merges
// take it; false when the worktree is not tracked or git failed.
func (s *Scanner) Snapshot(ctx context.Context, worktree string) (Snapshot, bool) {
	if s.read.runner == nil {
		return Snapshot{}, false
	}
	return s.snapshot(ctx, filepath.Clean(worktree))
}

// PeerFiles reads the named files from a snapshot of a side here, for
// another host's Hall: each file's mode and blob as the snapshot holds
// it, a file it lacks as deleted, in the order given, at most MaxPeerFiles
// and maxBytes of content all told. It answers how many it left out (past
// a bound, or not a file: a submodule, a directory).
func (s *Scanner) PeerFiles(ctx context.Context, snap Snapshot, paths []string, maxBytes int64) ([]PeerFile, int, error) {
	if s.read.runner == nil {
		return nil, len(paths), &Error{Code: GitMissing, Op: "no git runner"}
	}
	env, _, err := s.read.scratch.env(snap.GitDir)
	if err != nil {
		return nil, 0, &Error{Code: Failed, Op: "object directory", Err: err}
	}
	omitted := 0
	if len(paths) > MaxPeerFiles {
		omitted, paths = len(paths)-MaxPeerFiles, paths[:MaxPeerFiles]
	}
	args := append([]string{"ls-tree", "-l", "-z", "--full-tree", snap.Commit, "--"}, paths...)
	out, err := s.read.runner.Run(ctx, Cmd{Dir: snap.Top, Env: env, Args: args})
	if err != nil {
		return nil, 0, err
	}
	type entry struct {
		mode, oid string
		size      int64
	}
	found := map[string]entry{}
	for _, rec := range splitNUL(out.Stdout, out.Cut) {
		// "<mode> <type> <oid> <size>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		size, _ := strconv.ParseInt(f[3], 10, 64)
		found[path] = entry{mode: f[0], oid: f[2], size: size}
	}
	var files []PeerFile
	var used int64
	for _, p := range paths {
		e, ok := found[p]
		switch {
		case !ok:
			files = append(files, PeerFile{Path: p})
			continue
		case !shippableMode(e.mode) || used+e.size > maxBytes:
			omitted++
			continue
		}
		blob, err := s.read.runner.Run(ctx, Cmd{Dir: snap.Top, Env: env, Args: []string{"cat-file", "blob", e.oid}, maxOutput: int(e.size) + 1})
		if err != nil {
			return nil, 0, err
		}
		used += e.size
		files = append(files, PeerFile{Path: p, Mode: e.mode, Data: blob.Stdout})
	}
	return files, omitted, nil
}

// shippableMode reports whether a tree entry's mode is a file's.
func shippableMode(m string) bool { return m == "100644" || m == "100755" || m == "120000" }

// MergePeer predicts the merge of a side here (its snapshot, local) with
// a side on another host as its Hall shipped it: the far side's tree is
// its HEAD's with the shipped files in place, written into the scratch.
// Its HEAD must be among the repository's objects, or the store's when
// one is given (else BaseNotHere). Every shipped name and mode is
// checked before git sees it.
func (s *Scanner) MergePeer(ctx context.Context, local Snapshot, peer PeerContent, store *RemoteStore) (Merge, error) {
	r := s.read.runner
	if r == nil {
		return Merge{}, &Error{Code: GitMissing, Op: "no git runner"}
	}
	if !IsObjectID(peer.Head) {
		return Merge{}, &Error{Code: Failed, Op: "peer head", Err: fmt.Errorf("%q is not an object id", peer.Head)}
	}
	if len(peer.Files) > MaxPeerFiles {
		return Merge{}, &Error{Code: Failed, Op: "peer files", Err: fmt.Errorf("%d files, limit %d", len(peer.Files), MaxPeerFiles)}
	}
	for _, f := range peer.Files {
		if !cleanRepoPath(f.Path) || (f.Mode != "" && !shippableMode(f.Mode)) {
			return Merge{}, &Error{Code: Failed, Op: "peer file", Err: fmt.Errorf("refused %q mode %q", f.Path, f.Mode)}
		}
	}
	env, _, err := s.read.scratch.env(local.GitDir)
	if err != nil {
		return Merge{}, &Error{Code: Failed, Op: "object directory", Err: err}
	}
	writeTree := []string{"write-tree"}
	if store != nil {
		// The store's commits and trees are read after the repository's
		// own; its blobs are not there (blob:none), so the far tree is
		// written without them (--missing-ok) and the merge, run in the
		// store, fetches those it needs.
		env[1] += string(os.PathListSeparator) + filepath.Join(store.Dir, "objects")
		writeTree = append(writeTree, "--missing-ok")
	}
	run := func(args []string, stdin []byte, extra ...string) (string, error) {
		out, err := r.Run(ctx, Cmd{Dir: local.Top, Env: append(append([]string{}, env...), extra...), Args: args, Stdin: stdin})
		return strings.TrimSpace(string(out.Stdout)), err
	}
	if _, err := r.Run(ctx, Cmd{Dir: local.Top, Env: env, Args: []string{"cat-file", "-e", peer.Head + "^{commit}"}}); err != nil {
		if CodeOf(err) == Failed {
			return Merge{}, &Error{Code: BaseNotHere, Op: "git cat-file -e " + peer.Head, Err: err}
		}
		return Merge{}, err
	}
	tmp, err := os.MkdirTemp(s.read.scratch.Root(), "peer-index-")
	if err != nil {
		return Merge{}, &Error{Code: Failed, Op: "temporary index", Err: err}
	}
	defer os.RemoveAll(tmp)
	index := "GIT_INDEX_FILE=" + filepath.Join(tmp, "index")
	if _, err := run([]string{"read-tree", peer.Head}, nil, index); err != nil {
		return Merge{}, err
	}
	var info bytes.Buffer
	zero := strings.Repeat("0", len(peer.Head))
	for _, f := range peer.Files {
		if f.Mode == "" {
			fmt.Fprintf(&info, "0 %s\t%s\x00", zero, f.Path)
			continue
		}
		oid, err := run([]string{"hash-object", "-w", "--no-filters", "--stdin"}, f.Data)
		if err != nil {
			return Merge{}, err
		}
		fmt.Fprintf(&info, "%s %s\t%s\x00", f.Mode, oid, f.Path)
	}
	if _, err := run([]string{"update-index", "-z", "--index-info"}, info.Bytes(), index); err != nil {
		return Merge{}, err
	}
	tree, err := run(writeTree, nil, index)
	if err != nil {
		return Merge{}, err
	}
	commit, err := run([]string{"commit-tree", tree, "-p", peer.Head, "-m", "hall: another host's side"}, nil, snapshotEnv...)
	if err != nil {
		return Merge{}, err
	}
	far := Snapshot{Head: peer.Head, Tree: tree, Commit: commit, Top: local.Top, GitDir: local.GitDir}
	m, hit, err := s.read.cache.Predict(local.Commit, far.Commit, func() (Merge, error) {
		var m Merge
		var err error
		if store != nil {
			m, err = r.PredictRemoteMerge(ctx, store.Dir, s.read.scratch.Objects(local.GitDir), local.Commit, far.Commit, store.Auth)
		} else {
			m, err = r.PredictMerge(ctx, s.read.scratch, local, far)
		}
		s.read.n.merges.Add(1)
		if err != nil {
			s.read.n.mergeFail.Add(1)
		}
		return m, err
	})
	if hit {
		s.read.n.mergeHits.Add(1)
	}
	return m, err
}

// IsObjectID reports whether s is a full object id (SHA-1 or SHA-256),
// lower-case hex: safe to hand git as an argument.
func IsObjectID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// cleanRepoPath reports whether p is a clean repository-relative path git
// may be handed: no empty, ".", ".." or ".git" segment, not absolute, no
// NUL or newline.
func cleanRepoPath(p string) bool {
	if p == "" || strings.ContainsAny(p, "\x00\n\\") || strings.HasPrefix(p, "/") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.EqualFold(seg, ".git") {
			return false
		}
	}
	return true
}
