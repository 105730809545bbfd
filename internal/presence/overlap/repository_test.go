package overlap_test

import (
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/overlap"
	pt "github.com/hall-dev/hall/internal/presence/presencetest"
)

// TestOneRepository holds who may overlap (SameRepository) and what lies
// between them (AcrossOf): one brain as before identities, or one
// identity measured on both sides whatever the brains (issue #43).
func TestOneRepository(t *testing.T) {
	const shop = "github.com/team/shop"
	local := func(repo, clone string, files ...string) overlap.Git {
		return overlap.Git{Available: true, Files: files, Total: len(files), Repository: repo, Clone: clone}
	}
	at := func(agent, brain, wt string, g overlap.Git, opts ...pt.Option) overlap.Party {
		r := pt.Rec(agent, brain, append([]pt.Option{pt.Worktree(wt)}, opts...)...)
		return overlap.PartyOf(&r, g)
	}
	fromRecord := func(repo string) pt.Option {
		return func(r *presence.Record) {
			r.Changed, r.ChangedTotal, r.ChangedAtMs, r.Repository = []string{"src/cart.go"}, 1, 5, repo
		}
	}
	tests := []struct {
		name   string
		a, b   overlap.Party
		pair   bool
		across overlap.Across
		repo   string
	}{
		{name: "two worktrees of one clone", pair: true, across: overlap.AcrossWorktree, repo: shop,
			a: at("a", "/ana/shop", "/ana/shop", local(shop, "/ana/shop/.git", "src/cart.go")),
			b: at("b", "/ana/shop", "/ana/shop-wt", local(shop, "/ana/shop/.git", "src/cart.go"))},
		{name: "two clones of one remote", pair: true, across: overlap.AcrossClone, repo: shop,
			a: at("a", "/src/ana", "/src/ana", local(shop, "/src/ana/.git", "src/cart.go")),
			b: at("b", "/src/bob", "/src/bob", local(shop, "/src/bob/.git", "src/cart.go"))},
		{name: "two clones split by hall.repository", pair: false,
			a: at("a", "/src/ana", "/src/ana", local("shop-a", "/src/ana/.git", "src/cart.go")),
			b: at("b", "/src/bob", "/src/bob", local("shop-b", "/src/bob/.git", "src/cart.go"))},
		{name: "two brains, an identity unknown on one side", pair: false,
			a: at("a", "/src/ana", "/src/ana", local(shop, "/src/ana/.git", "src/cart.go")),
			b: at("b", "/src/bob", "/src/bob", overlap.Git{Reason: overlap.NotScanned}, pt.Touched("/src/bob/src/cart.go"))},
		{name: "one brain, identities unknown: as before", pair: true, across: overlap.AcrossWorktree,
			a: at("a", "/ana/shop", "/ana/shop", overlap.Git{Reason: overlap.NotScanned}, pt.Touched("/ana/shop/src/cart.go")),
			b: at("b", "/ana/shop", "/ana/shop-wt", overlap.Git{Reason: overlap.NotScanned}, pt.Touched("/ana/shop-wt/src/cart.go"))},
		{name: "one brain, branches tracking two remotes: still one clone", pair: true, across: overlap.AcrossWorktree,
			a: at("a", "/ana/shop", "/ana/shop", local(shop, "/ana/shop/.git", "src/cart.go")),
			b: at("b", "/ana/shop", "/ana/shop-wt", local("github.com/ana/shop", "/ana/shop/.git", "src/cart.go"))},
		{name: "the identity from the record: another host", pair: true, across: overlap.AcrossHost, repo: shop,
			a: at("a", "/src/ana", "/src/ana", local(shop, "/src/ana/.git", "src/cart.go")),
			b: func() overlap.Party {
				r := pt.Rec("b", "/home/bob/shop", pt.Worktree("/home/bob/shop"), fromRecord(shop))
				g, _ := overlap.RecordGit(&r)
				return overlap.PartyOf(&r, g)
			}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := overlap.SameRepository(&tc.a, &tc.b); got != tc.pair {
				t.Fatalf("SameRepository = %v, want %v", got, tc.pair)
			}
			f, ok := overlap.Between(tc.a, tc.b, nil, 0)
			if ok != tc.pair {
				t.Fatalf("Between ok = %v, want %v", ok, tc.pair)
			}
			if !ok {
				return
			}
			if f.Across != tc.across || f.Repository != tc.repo {
				t.Errorf("across %q, repository %q; want %q, %q", f.Across, f.Repository, tc.across, tc.repo)
			}
			found, tally := overlap.Within("", []overlap.Party{tc.a, tc.b}, nil, overlap.Bound{})
			if len(found) != 1 || tally.Brains[f.Brain] != 1 {
				t.Errorf("Within every brain: %d found, brains %v; want 1 on %s", len(found), tally.Brains, f.Brain)
			}
		})
	}
}
