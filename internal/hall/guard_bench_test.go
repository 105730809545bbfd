package hall_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/hall"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
)

// BenchmarkShellHook is a shell tool's pre-event answered in process
// beside a Grep of the same line (a tool the guard never reads), at 100
// presences, three others with work in the session's worktree: the CPU
// the guard adds to a hook answer, apart from the network and the load
// generator (tools/hallbench -only guard times the same over HTTP).
func BenchmarkShellHook(b *testing.B) {
	ctx := context.Background()
	store := dirstoretest.Open(b)
	svc := presence.NewService(store, presence.Config{Now: presencetest.NewClock(presencetest.T0).Now, Logger: slog.New(slog.DiscardHandler)})
	h := &hall.Hall{Service: svc}
	// Watching, as in a serving Hall: reads come from the service's cache.
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = svc.Run(runCtx, presence.RunConfig{}) }()
	b.Cleanup(func() { stop(); <-done })
	for _, r := range presencetest.BenchRoster(95) {
		if err := store.Upsert(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	repo := "/home/dev/shop"
	for i := 0; i < 5; i++ {
		wt := repo
		if i >= 3 {
			wt = fmt.Sprintf("%s-wt%d", repo, i)
		}
		var touched []string
		for j := 0; j < 8; j++ {
			touched = append(touched, filepath.Join(wt, "src", fmt.Sprintf("pkg%d", i), fmt.Sprintf("file%d.go", j)))
		}
		r := presencetest.Rec(fmt.Sprintf("codex-%d", i), repo, presencetest.Worktree(wt), presencetest.CallerRoot(wt), presencetest.Touched(touched...))
		if err := store.Upsert(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	hook := func(b *testing.B, body []byte) {
		if _, err := h.Hook(ctx, hall.HookRequest{Agent: "claude", Payload: body}); err != nil {
			b.Fatal(err)
		}
	}
	const session = "5e1f-5e55-1on"
	lines := map[string]string{
		"git add -A":   "git add -A",
		"commit/1KiB":  benchCommitLine(1 << 10),
		"commit/4KiB":  benchCommitLine(4 << 10),
		"commit/32KiB": benchCommitLine(32 << 10),
		// Past the guard's read bound, and the payload's densest in JSON
		// escapes (& and > written \u0026, \u003e): what a line costs the
		// hook before the guard reads it.
		"chain/32KiB": strings.Repeat("cd src/search && gofmt -l index.go && go vet ./... 2>&1 | tee -a /tmp/log; cd ..; ", 390),
	}
	for name, line := range lines {
		for _, tool := range []string{"Grep", "Bash"} {
			body := payload("claude", session, repo, "PreToolUse", tool, map[string]any{"command": line, "pattern": line})
			b.Run(name+"/"+tool, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					hook(b, body)
				}
			})
		}
	}
}

// benchCommitLine is a commit whose message is a here-document, about n
// bytes.
func benchCommitLine(n int) string {
	const para = "Round the cart total once, at checkout, so the tax line and the total agree; the rounding moved from the line items to the cart.\n"
	return "git commit -m \"$(cat <<'EOF'\nFix cart rounding\n\n" + strings.Repeat(para, max(1, n/len(para)-1)) + "EOF\n)\""
}
