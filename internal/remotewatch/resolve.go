package remotewatch

import (
	"context"
	"strings"

	"github.com/hall-dev/hall/internal/gitscan"
)

// origin is where a worktree fetches from: the remote its branch's
// upstream names, else origin.
type origin struct {
	Branch   string // the checked-out branch's ref, "" when detached
	Remote   string // the remote's name in the worktree's configuration
	URL      string // as git resolves it (ls-remote --get-url: insteadOf applied)
	Identity string // gitscan.RemoteIdentity of URL; "" when the worktree has no usable remote
	// Upstream is the branch's upstream on that remote, short ("feat"):
	// the worktree's own pushed work, never a side of its overlaps.
	Upstream string
	Helpers  []string // the repository's own credential.helper values (gitscan.PlainHelper ones are used)
}

// resolve reads a worktree's origin with git commands that only read (and
// connect to nothing): symbolic-ref, for-each-ref, ls-remote --get-url,
// config --get-all.
func resolve(ctx context.Context, run *gitscan.Runner, worktree string) (origin, error) {
	var o origin
	out, err := run.Run(ctx, gitscan.Cmd{Dir: worktree, Args: []string{"symbolic-ref", "-q", "HEAD"}, OK: []int{1}})
	if err != nil {
		return o, err
	}
	o.Branch = strings.TrimSpace(string(out.Stdout))
	o.Remote = "origin"
	if strings.HasPrefix(o.Branch, "refs/heads/") {
		out, err := run.Run(ctx, gitscan.Cmd{Dir: worktree, Args: []string{"for-each-ref", "--format=%(upstream:remotename)%00%(upstream:remoteref)", "--", o.Branch}})
		if err != nil {
			return o, err
		}
		name, ref, _ := strings.Cut(strings.TrimSpace(string(out.Stdout)), "\x00")
		if name != "" {
			o.Remote = name
			o.Upstream = strings.TrimPrefix(ref, "refs/heads/")
		}
	}
	if strings.HasPrefix(o.Remote, "-") {
		return o, nil
	}
	out, err = run.Run(ctx, gitscan.Cmd{Dir: worktree, Args: []string{"ls-remote", "--get-url", o.Remote}})
	if err != nil {
		return o, err
	}
	o.URL = strings.TrimSpace(string(out.Stdout))
	if o.URL == "" || o.URL == o.Remote {
		return origin{Branch: o.Branch}, nil // git echoes a name it has no remote for
	}
	o.Identity = gitscan.RemoteIdentity(o.URL, worktree)
	out, err = run.Run(ctx, gitscan.Cmd{Dir: worktree, Args: []string{"config", "--local", "--get-all", "credential.helper"}, OK: []int{1}})
	if err == nil {
		for h := range strings.SplitSeq(string(out.Stdout), "\n") {
			if h = strings.TrimSpace(h); h != "" {
				o.Helpers = append(o.Helpers, h)
			}
		}
	}
	return o, nil
}

// fetchURL is what the store fetches from: a remote on this machine's
// disk by its absolute path (a worktree's relative one means nothing in
// the store), any other as git resolved it.
func fetchURL(o origin) string {
	if p, ok := strings.CutPrefix(o.Identity, "file://"); ok {
		return p
	}
	return o.URL
}
