package gitscan_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/hall-dev/hall/internal/gitscan"
	"github.com/hall-dev/hall/internal/gittest"
)

// TestRunStreamsPastTheBound: a Cmd with Stdout gets all of git's
// output, past MaxOutput, and nothing is kept in Output (a restore
// streams a blob of any size to its file this way).
func TestRunStreamsPastTheBound(t *testing.T) {
	g := newRunner(t, gitscan.RunnerConfig{MaxOutput: 100})
	content := bytes.Repeat([]byte("0123456789"), 1000)
	dir := t.TempDir()
	gittest.Init(t, dir)
	id, err := g.Run(context.Background(), gitscan.Cmd{Dir: dir, Args: []string{"hash-object", "-w", "--stdin"}, Stdin: content})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	out, err := g.Run(context.Background(), gitscan.Cmd{Dir: dir, Args: []string{"cat-file", "--batch"}, Stdin: id.Stdout, Stdout: &got})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got.Bytes(), content) || len(out.Stdout) != 0 || out.Cut {
		t.Errorf("streamed %d bytes, kept %d (cut %v): want all %d streamed, none kept", got.Len(), len(out.Stdout), out.Cut, len(content))
	}
}
