package remotewatch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hall-dev/hall/internal/atomicfile"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/safefile"
)

// store is the Hall's own copy of one remote's branches: a bare partial
// clone (blob:none) under the watch's root, its refs/heads the remote's
// as of the last fetch. Nothing of a person's repository is written here
// or from here.
type store struct {
	dir  string // the bare repository
	url  string // what git fetches from
	auth gitscan.Auth
	run  *gitscan.Runner
}

// storeDir names a remote's store beneath root by its identity's hash:
// an identity is a URL or a path, never a file name.
func storeDir(root, identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return filepath.Join(root, hex.EncodeToString(sum[:10])+".git")
}

// open makes the store when it is not there yet (git init --bare, the
// remote named origin, a promisor of blob:none), and points it at url.
func (s *store) open(ctx context.Context) error {
	if _, err := os.Stat(filepath.Join(s.dir, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(s.dir), 0o700); err != nil {
			return fmt.Errorf("the watch store: %w", err)
		}
		if _, err := s.run.Run(ctx, gitscan.Cmd{Args: []string{"init", "--bare", "-q", "--", s.dir}}); err != nil {
			return fmt.Errorf("the watch store: %w", err)
		}
		for _, kv := range [][2]string{
			{"core.repositoryformatversion", "1"},
			{"extensions.partialClone", "origin"},
			{"remote.origin.promisor", "true"},
			{"remote.origin.partialclonefilter", "blob:none"},
			{"gc.auto", "0"},
		} {
			if err := s.config(ctx, kv[0], kv[1]); err != nil {
				return err
			}
		}
	}
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{"config", "--get", "remote.origin.url"}, OK: []int{1}})
	if err != nil {
		return fmt.Errorf("the watch store: %w", err)
	}
	if string(bytes.TrimSpace(out.Stdout)) != s.url {
		return s.config(ctx, "remote.origin.url", s.url)
	}
	return nil
}

func (s *store) config(ctx context.Context, key, value string) error {
	if _, err := s.run.Run(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{"config", key, value}}); err != nil {
		return fmt.Errorf("the watch store: config %s: %w", key, err)
	}
	return nil
}

// heads lists the remote's branches now: one git ls-remote --heads.
func (s *store) lsRemote(ctx context.Context) (map[string]string, error) {
	out, err := s.run.RunRemote(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{"ls-remote", "--heads", "origin"}}, s.auth)
	if err != nil {
		return nil, err
	}
	if out.Cut {
		return nil, fmt.Errorf("git ls-remote: the remote's branches are over git's output bound")
	}
	return parseRefs(out.Stdout, "\t"), nil
}

// defaultBranch asks the remote which branch its HEAD names; "" when it
// names none.
func (s *store) defaultBranch(ctx context.Context) (string, error) {
	out, err := s.run.RunRemote(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{"ls-remote", "--symref", "origin", "HEAD"}}, s.auth)
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(out.Stdout), "\n") {
		if rest, ok := strings.CutPrefix(line, "ref: refs/heads/"); ok {
			name, _, _ := strings.Cut(rest, "\t")
			return name, nil
		}
	}
	return "", nil
}

// fetch brings the store's branches to the remote's: new tips' commits
// and trees, no blob, forced (a force-push), pruned (a deleted branch),
// no FETCH_HEAD, no tag.
func (s *store) fetch(ctx context.Context) error {
	_, err := s.run.RunRemote(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{
		"fetch", "-q", "--prune", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules",
		"--filter=blob:none", "origin", "+refs/heads/*:refs/heads/*"}}, s.auth)
	return err
}

// localHeads lists the store's branches (as of its last fetch).
func (s *store) localHeads(ctx context.Context) (map[string]string, error) {
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{"for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/"}})
	if err != nil {
		return nil, err
	}
	return parseRefs(out.Stdout, " "), nil
}

// parseRefs reads "<id><sep>refs/heads/<name>" lines into name → id.
func parseRefs(b []byte, sep string) map[string]string {
	refs := map[string]string{}
	for line := range strings.SplitSeq(string(b), "\n") {
		id, ref, ok := strings.Cut(line, sep)
		if name, isHead := strings.CutPrefix(ref, "refs/heads/"); ok && isHead && name != "" {
			refs[name] = id
		}
	}
	return refs
}

// tip is one branch's tip as the store has it.
type tip struct {
	Name        string
	Commit      string
	CommittedMs int64
	Author      string
}

// unmerged lists the store's branches not merged into the default
// branch, newest commit first: one git for-each-ref.
func (s *store) unmerged(ctx context.Context, def string) ([]tip, error) {
	var args []string
	if def != "" {
		args = append(args, "--no-merged=refs/heads/"+def)
	}
	return s.tips(ctx, append(args, "refs/heads/"))
}

// tipOf is one branch's tip; false when the store has no such branch.
func (s *store) tipOf(ctx context.Context, name string) (tip, bool, error) {
	tips, err := s.tips(ctx, []string{"refs/heads/" + name})
	for _, t := range tips {
		if t.Name == name {
			return t, true, err
		}
	}
	return tip{}, false, err
}

// tips lists branches with git for-each-ref and args (filters, patterns),
// newest commit first.
func (s *store) tips(ctx context.Context, args []string) ([]tip, error) {
	args = append([]string{"for-each-ref", "--sort=-committerdate", "--format=%(refname:strip=2)%00%(objectname)%00%(committerdate:unix)%00%(authorname)"}, args...)
	out, err := s.run.Run(ctx, gitscan.Cmd{Dir: s.dir, Args: args})
	if err != nil {
		return nil, err
	}
	var tips []tip
	for line := range strings.SplitSeq(string(out.Stdout), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 4 {
			continue
		}
		sec, _ := strconv.ParseInt(f[2], 10, 64)
		tips = append(tips, tip{Name: f[0], Commit: f[1], CommittedMs: sec * 1000, Author: f[3]})
	}
	return tips, nil
}

// changed lists the files a branch changed against its merge base with
// the default branch (git diff --name-only def...tip: trees only, no
// blob read), at most max, and counts them all.
// alternates are object directories read besides the store's (a
// repository's, where from is its HEAD).
func (s *store) changed(ctx context.Context, from, tipID string, max int, alternates ...string) ([]string, int, error) {
	c := gitscan.Cmd{Dir: s.dir, Args: []string{"diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", from + "..." + tipID, "--"}}
	if len(alternates) > 0 {
		c.Env = []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + strings.Join(alternates, string(os.PathListSeparator))}
	}
	out, err := s.run.Run(ctx, c)
	if err != nil {
		return nil, 0, err
	}
	var files []string
	total := 0
	for f := range strings.SplitSeq(string(out.Stdout), "\x00") {
		if f == "" {
			continue
		}
		total++
		if len(files) < max {
			files = append(files, f)
		}
	}
	return files, total, nil
}

// prune drops the store's loose objects nothing reaches that are over an
// hour old: the trees and blobs merge predictions wrote (git merge-tree
// writes its result). The promisor packs a fetch brought stay.
func (s *store) prune(ctx context.Context) error {
	_, err := s.run.Run(ctx, gitscan.Cmd{Dir: s.dir, Args: []string{"prune", "--expire=1.hour.ago"}})
	return err
}

// seenFile, in the store's directory (a file git ignores there), keeps
// when each tip of the store was first seen across the Hall's restarts:
// a tip's object id → milliseconds.
const seenFile = "hall-seen.json"

// maxSeenBytes bounds the read of seenFile: an object id and a time are
// under 100 bytes, and a store holds far fewer than 40,000 tips.
const maxSeenBytes = 4 << 20

// loadSeen reads when the store's tips were first seen, as saveSeen left
// it; empty when there is no file or it cannot be read (the tips are
// then first seen at this look, as before the file existed). Entries
// that are no object id, or no time, are left out.
func (s *store) loadSeen() map[string]int64 {
	seen := map[string]int64{}
	b, err := safefile.ReadFile(filepath.Join(s.dir, seenFile), maxSeenBytes, safefile.NoFollow)
	if err != nil || json.Unmarshal(b, &seen) != nil {
		return map[string]int64{}
	}
	for id, ms := range seen {
		if !objectID(id) || ms <= 0 {
			delete(seen, id)
		}
	}
	return seen
}

// saveSeen keeps seen for loadSeen, replacing the file whole (no sync:
// a power loss at worst takes the times back to an older look's).
func (s *store) saveSeen(seen map[string]int64) error {
	b, err := json.Marshal(seen)
	if err != nil {
		return fmt.Errorf("the watch store: first seen: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(s.dir, seenFile), b, atomicfile.Options{Perm: 0o600, NoSync: true}); err != nil {
		return fmt.Errorf("the watch store: first seen: %w", err)
	}
	return nil
}
