package hall

import (
	"context"
	"path/filepath"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/overlap"
)

// checkAgent stands for a check that names no agent: an id no session
// has, so nobody is left out as its own.
const checkAgent = "hall-check"

// checkIntent is the declared mutation of a check's hypothetical
// presence: m1nd's signal word, the one declared intent that signals.
const checkIntent = "mutate"

// maxCheckHits bounds each list of a check's answer.
const maxCheckHits = presence.NorthCap

// Check answers "would this collide?": the live presences a beat carrying
// req would collide with (same brain, one place, both mutating) or
// overlap (same brain, another worktree, the same files), and why. It
// writes nothing and changes no roster: the work is a record built here
// and held against the live roster. A malformed request is refused as a
// beat would be (invalid_beat, field_too_large); an unreadable roster
// still answers, with no hits and why. A client past its rate limit
// (CheckLimit; the transport names the client: WithClient) is refused
// 429 rate_limited before anything is read.
func (h *Hall) Check(ctx context.Context, req contract.CheckRequest) (contract.CheckResponse, error) {
	if err := h.allowCheck(ctx); err != nil {
		return contract.CheckResponse{}, err
	}
	if req.Brain == "" && req.CallerRoot == "" && req.Worktree == "" {
		return contract.CheckResponse{}, contract.Refuse(contract.KindInvalid, "invalid_beat", "give brain, caller_root or worktree")
	}
	for _, f := range [...]struct{ name, path string }{{"brain", req.Brain}, {"caller_root", req.CallerRoot}, {"worktree", req.Worktree}} {
		if f.path != "" && !filepath.IsAbs(f.path) {
			return contract.CheckResponse{}, contract.Refuse(contract.KindInvalid, "invalid_beat", "%s %q is not an absolute path", f.name, f.path)
		}
	}
	beat := contract.BeatRequest{AgentID: req.AgentID, Brain: req.Brain, CallerRoot: req.CallerRoot, Worktree: req.Worktree}
	if beat.AgentID == "" {
		beat.AgentID = checkAgent
	}
	if beat.CallerRoot == "" {
		beat.CallerRoot = req.Worktree
	}
	if len(req.Paths) > presence.MaxWorkingSetLen {
		return contract.CheckResponse{}, contract.Refuse(contract.KindInvalid, "field_too_large", "paths has %d entries, limit %d", len(req.Paths), presence.MaxWorkingSetLen)
	}
	paths := append([]string{}, req.Paths...)
	beat.WorkingSet = &paths
	if req.Mutating == nil || *req.Mutating {
		beat.DeclaredIntent = checkIntent
	}
	b, err := CompletePlace(ctx, beat).Beat().Normalize()
	if err != nil {
		return contract.CheckResponse{}, contract.BeatError(err)
	}
	self := presence.Record{
		PresenceID: presence.ID(b.AgentID, b.Brain), AgentID: b.AgentID, Brain: b.Brain,
		CallerRoot: b.CallerRoot, Worktree: b.Worktree, WorkingSet: b.WorkingSet,
		Mutation: presence.Mutation{DeclaredIntent: b.DeclaredIntent},
	}
	out := contract.CheckResponse{Brain: b.Brain, Collisions: []contract.CheckHit{}, Overlaps: []contract.CheckHit{}}
	snap, err := h.roster().Snapshot(ctx)
	if err != nil {
		out.Error, out.Detail = contract.RosterError(err)
		return out, nil
	}
	if own, ok := snap.Find(self.PresenceID); ok {
		self.ParentPresenceID = own.ParentPresenceID // its team is left out too
	}
	selfParty := overlap.PartyOf(&self, h.gitOf(self.WorktreePath()))
	out.Repository = selfParty.Repository
	for i := range snap.Live {
		r := &snap.Live[i]
		if r.PresenceID == self.PresenceID {
			continue
		}
		// Collisions within a brain; overlaps within a repository
		// (Between: overlap.SameRepository), another clone's too.
		if r.Brain == self.Brain {
			if c, ok := presence.CollisionBetween(self, *r, time.UnixMilli(snap.AtMs)); ok {
				if len(out.Collisions) < maxCheckHits {
					hit := hitOf(r)
					for _, cl := range c.Clauses {
						hit.Clauses = append(hit.Clauses, string(cl))
					}
					hit.Paths = c.Paths
					out.Collisions = append(out.Collisions, hit)
				}
				continue
			}
		}
		f, ok := overlap.Between(selfParty, overlap.PartyOf(withoutInstallerFiles(r), h.gitOf(r.WorktreePath())), overlap.MergeMap{}, 0)
		if !ok || len(out.Overlaps) == maxCheckHits {
			continue
		}
		hit := hitOf(r)
		for _, file := range f.Files {
			hit.Paths = append(hit.Paths, file.Path)
		}
		hit.Merge, hit.Across = string(f.Merge), string(f.Across)
		out.Overlaps = append(out.Overlaps, hit)
	}
	out.WouldCollide = len(out.Collisions) > 0
	out.Pushed = h.checkPushed(self, b.WorkingSet, snap.AtMs)
	return out, nil
}

// checkPushed answers the pushed branches that already changed the
// check's paths (docs/worktrees.md#pushed-work): of the remote the
// check's worktree fetches from, else its brain's, as the watch last
// found them; at most maxCheckHits, newest first.
func (h *Hall) checkPushed(self presence.Record, paths []string, nowMs int64) []contract.CheckPushed {
	wt := self.WorktreePath()
	if h.Remotes == nil || len(paths) == 0 || wt == "" {
		return nil
	}
	rels := make([]string, 0, len(paths))
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(wt, p)
		}
		if rel, ok := presence.RelFile(wt, p); ok {
			rels = append(rels, filepath.ToSlash(rel))
		}
	}
	var out []contract.CheckPushed
	for _, p := range h.Remotes.Touching([]string{wt, self.Brain}, rels) {
		if len(out) == maxCheckHits {
			break
		}
		c := contract.CheckPushed{Remote: p.Remote, Branch: p.Branch.Name, Commit: p.Branch.Commit,
			Author: p.Branch.Author, CommittedMs: p.Branch.CommittedMs, Paths: p.Files}
		if p.Branch.SeenMs > 0 {
			c.SeenMs, c.SeenAgoMs = p.Branch.SeenMs, max(nowMs-p.Branch.SeenMs, 0)
		}
		out = append(out, c)
	}
	return out
}

func hitOf(r *presence.Record) contract.CheckHit {
	return contract.CheckHit{PresenceID: r.PresenceID, AgentID: r.AgentID, Kind: r.Kind, Theme: r.Theme, Worktree: r.Worktree}
}

// gitOf is git's last answer for a worktree as overlap reads it; not
// available when the Hall has none (no scanner, not scanned yet).
func (h *Hall) gitOf(worktree string) overlap.Git {
	if h.Git == nil || worktree == "" {
		return overlap.Git{Reason: "unknown"}
	}
	res, ok := h.Git.Result(worktree)
	if !ok {
		return overlap.Git{Reason: overlap.NotScanned}
	}
	if res.Err != nil {
		return overlap.Git{Reason: "unavailable"}
	}
	return gitscan.GitOf(res, true)
}
