package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// The overlap scenario's agents: one Claude Code session in each
// worktree, beating as its hooks do (SessionStart, then for every edit a
// PreToolUse, the file really written, a PostToolUse) at an agent's pace,
// a tool call every one to two seconds, each on one of a handful of files
// of its own. The probes (overlaps_probe.go) borrow an agent's hand to
// edit a file its partner edits too.

// privateFiles is how many files of its own each agent edits.
const privateFiles = 4

// hookTimes are the hook calls' wall times, by event: those of the
// steady phase (the agents' own edits alone) apart from the rest.
type hookTimes struct {
	mu                    sync.Mutex
	pre, post             []time.Duration
	steadyPre, steadyPost []time.Duration
	steady                bool // calls now are the steady phase's
	errors                int
}

// setSteady starts (true) or ends the steady phase.
func (h *hookTimes) setSteady(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.steady = on
}

func (h *hookTimes) add(pre bool, d time.Duration, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err != nil:
		h.errors++
	case h.steady && pre:
		h.steadyPre = append(h.steadyPre, d)
	case h.steady:
		h.steadyPost = append(h.steadyPost, d)
	case pre:
		h.pre = append(h.pre, d)
	default:
		h.post = append(h.post, d)
	}
}

// obAgent is one session in one worktree.
type obAgent struct {
	n        int
	session  string
	worktree string
	url      string
	client   *http.Client
	times    *hookTimes
	rng      *rand.Rand

	mu    sync.Mutex // one tool call at a time, the agent's or a probe's
	edits int
	// heard, when set, is shown every hook answer the agent reads, with
	// the time it came back.
	heard func(answer []byte, at time.Time)
}

func newObAgent(n, round int, worktree, url string, times *hookTimes) *obAgent {
	// Claude's agent id is the session's first eight characters: the
	// agent's number and the round's, so a new round's sessions are new.
	return &obAgent{
		n: n, session: fmt.Sprintf("%04x%04x-0000-4000-8000-000000000000", round, n), worktree: worktree, url: url, times: times,
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}},
		rng:    rand.New(rand.NewPCG(uint64(n), uint64(round))),
	}
}

// hook posts one Claude hook payload to the Hall's hook endpoint and
// returns its answer.
func (a *obAgent) hook(ctx context.Context, event string, fields map[string]any) ([]byte, error) {
	p := map[string]any{"session_id": a.session, "transcript_path": "/dev/null", "cwd": a.worktree, "permission_mode": "default", "hook_event_name": event}
	for k, v := range fields {
		p[k] = v
	}
	body, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url+"/api/hooks/claude", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode >= 300 {
		err = fmt.Errorf("%s hook: status %d: %s", event, resp.StatusCode, out)
	}
	return out, err
}

// start is the session's SessionStart.
func (a *obAgent) start(ctx context.Context) error {
	_, err := a.hook(ctx, "SessionStart", map[string]any{"source": "startup"})
	return err
}

// edit is one Edit tool call on the repository file rel: PreToolUse, the
// file written with content, PostToolUse. written, when set, is told the
// moment the file was written, before the PostToolUse beat.
func (a *obAgent) edit(ctx context.Context, rel string, content []byte, written func(time.Time)) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	abs := filepath.Join(a.worktree, filepath.FromSlash(rel))
	a.edits++
	input := map[string]any{"file_path": abs, "old_string": "return", "new_string": "return"}
	tool := map[string]any{"tool_name": "Edit", "tool_input": input, "tool_use_id": fmt.Sprintf("toolu_%d_%d", a.n, a.edits)}
	t0 := time.Now()
	ans, err := a.hook(ctx, "PreToolUse", tool)
	a.timed(ctx, true, t0, err)
	if err == nil && a.heard != nil {
		a.heard(ans, time.Now())
	}
	if err := os.WriteFile(abs, content, 0o644); err != nil {
		return err
	}
	if written != nil {
		written(time.Now())
	}
	tool["tool_response"] = map[string]any{"filePath": abs, "success": true}
	t0 = time.Now()
	ans, err = a.hook(ctx, "PostToolUse", tool)
	a.timed(ctx, false, t0, err)
	if err == nil && a.heard != nil {
		a.heard(ans, time.Now())
	}
	return nil
}

// timed records a hook call's wall time, or its error. A call the
// round's end cut short (ctx done) is neither: the round stopped it, the
// Hall did not fail it.
func (a *obAgent) timed(ctx context.Context, pre bool, t0 time.Time, err error) {
	if err != nil && ctx.Err() != nil {
		return
	}
	a.times.add(pre, time.Since(t0), err)
}

// run is the agent's own work until ctx ends: a tool call every one to
// two seconds on one of its files, each changing a line of it.
func (a *obAgent) run(ctx context.Context) {
	if !sleepCtx(ctx, time.Duration(a.rng.IntN(1000))*time.Millisecond) {
		return
	}
	for k := 0; ctx.Err() == nil; k++ {
		file := a.n*privateFiles + a.rng.IntN(privateFiles)
		line := 2 + a.rng.IntN(fileLines-2)
		content := fileContent(file, map[int]string{line: fmt.Sprintf("// agent %d, edit %d", a.n, k)})
		if err := a.edit(ctx, repoFileRel(file), content, nil); err != nil && ctx.Err() == nil {
			a.times.add(false, 0, err)
		}
		if !sleepCtx(ctx, time.Duration(1000+a.rng.IntN(1000))*time.Millisecond) {
			return
		}
	}
}
