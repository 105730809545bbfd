package gitscan

import (
	"context"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The repository a worktree belongs to, wherever it is checked out (issue
// #43): measured from the worktree's own git, never declared, so two
// clones of one repository (and worktrees of each) are compared as
// worktrees of one clone are. In order, the first that answers:
//
//  1. the repository-local git config key hall.repository (read, never
//     written), as written: a person joins two clones (or two unrelated
//     repositories) by giving them one value, and splits two clones by
//     giving them different ones;
//  2. the URL of the remote the checked-out branch tracks
//     (branch.<b>.remote), else of origin, as git resolves it (git
//     ls-remote --get-url: url.<base>.insteadOf applied, no network),
//     in RemoteIdentity's one form;
//  3. the repository's root commit(s): "root:<sha>[,<sha>...]", sorted;
//  4. its common directory: "file://<commondir>" (a repository with no
//     commit and no remote is one clone's own).
//
// It is read off the request path, with the scan, and kept per
// repository and branch for identityTTL: a change of remote or of the
// key shows within it.

// RepositoryKey is the git config key a person sets, in a repository's
// own configuration, to say which repository it is (docs/worktrees.md).
const RepositoryKey = "hall.repository"

// Bounds on an identity.
const (
	identityTTL      = 30 * time.Second
	maxIdentityBytes = 512 // a longer hall.repository or URL is not used
	maxRootCommits   = 8   // a history of more roots names the first ones
)

// identity fills c.Repository, from the cache when asked within
// identityTTL. c's Worktree, CommonDir, Branch and Head are set.
func (r *Runner) identity(ctx context.Context, c *Changes) error {
	key := [2]string{c.CommonDir, c.Branch}
	if id, ok := r.cache.identity(key); ok {
		c.Repository = id
		return nil
	}
	id, err := r.Identity(ctx, c.Worktree, c.Branch, c.Head, c.CommonDir)
	if err != nil {
		return err
	}
	r.cache.putIdentity(key, id)
	c.Repository = id
	return nil
}

// Identity is the repository identity of the worktree wt (the rules
// above), its branch, HEAD commit and common directory as git gave them
// (branch "" when detached, head "" before the first commit). It reads
// only: git config, git ls-remote --get-url and git rev-list, each under
// the runner's neutral environment. Callers check wt is ours first
// (Changes does).
func (r *Runner) Identity(ctx context.Context, wt, branch, head, commonDir string) (string, error) {
	out, err := r.Run(ctx, Cmd{Dir: wt, OK: []int{1}, Args: []string{"config", "-z", "--show-scope", "--get-regexp", `^(hall\.repository|branch\..*\.remote|remote\..*\.url)$`}})
	if err != nil {
		return "", err
	}
	cfg := parseScopedConfig(out.Stdout)
	if v, ok := cfg.local[RepositoryKey]; ok {
		if v = strings.TrimSpace(v); usableIdentity(v) {
			return v, nil
		}
	}
	for _, remote := range cfg.remotes(branch) {
		out, err := r.Run(ctx, Cmd{Dir: wt, Args: []string{"ls-remote", "--get-url", remote}})
		if err != nil {
			return "", err
		}
		if id := RemoteIdentity(string(out.Stdout), wt); usableIdentity(id) {
			return id, nil
		}
	}
	if head != "" {
		if id, ok := r.cache.roots(head); ok {
			return id, nil
		}
		// The whole history is walked: kept by HEAD, whose roots never
		// change, so a repository without a remote pays it once a commit.
		out, err := r.Run(ctx, Cmd{Dir: wt, Args: []string{"rev-list", "--max-parents=0", head, "--"}})
		if err != nil {
			return "", err
		}
		if roots := strings.Fields(string(out.Stdout)); len(roots) > 0 && !out.Cut {
			slices.Sort(roots)
			id := "root:" + strings.Join(roots[:min(len(roots), maxRootCommits)], ",")
			r.cache.putRoots(head, id)
			return id, nil
		}
	}
	return "file://" + commonDir, nil
}

// usableIdentity reports whether a value can stand for a repository:
// not empty, bounded, valid UTF-8 with no control character (it is
// shown on every surface).
func usableIdentity(v string) bool {
	return v != "" && len(v) <= maxIdentityBytes && utf8.ValidString(v) &&
		!strings.ContainsFunc(v, unicode.IsControl)
}

// scopedConfig is what Identity reads of git config: every value, by
// key, and the repository's own (scope local or worktree) apart.
type scopedConfig struct {
	all, local map[string]string // the last value of each key, as git would take it
}

// parseScopedConfig reads git config -z --show-scope --get-regexp
// output: "scope\0key\nvalue\0" records.
func parseScopedConfig(b []byte) scopedConfig {
	c := scopedConfig{all: map[string]string{}, local: map[string]string{}}
	fields := strings.Split(string(b), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		scope, kv := fields[i], fields[i+1]
		k, v, _ := strings.Cut(kv, "\n")
		c.all[k] = v
		if scope == "local" || scope == "worktree" {
			c.local[k] = v
		}
	}
	return c
}

// remotes are the remotes whose URL names the repository, in order: the
// one the branch tracks (not ".", the repository itself), then origin;
// only remotes with a URL configured (git ls-remote --get-url answers an
// unknown remote's name back), never a name git would read as an option.
func (c scopedConfig) remotes(branch string) []string {
	var out []string
	for _, name := range []string{c.all["branch."+branch+".remote"], "origin"} {
		if name == "" || name == "." || strings.HasPrefix(name, "-") || slices.Contains(out, name) {
			continue
		}
		if _, ok := c.all["remote."+name+".url"]; ok {
			out = append(out, name)
		}
	}
	return out
}
