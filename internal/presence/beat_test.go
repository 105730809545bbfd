package presence_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
)

func TestBeatNormalize(t *testing.T) {
	ok := presence.Beat{AgentID: "claude-7", Brain: "/home/ana/shop"}
	with := func(f func(*presence.Beat)) presence.Beat { b := ok; f(&b); return b }
	long := func(n int) string { return strings.Repeat("x", n) }
	absLong := func(n int) string { return "/" + strings.Repeat("p", n-1) }
	many := func(n int) []string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = "f"
		}
		return ws
	}
	tests := []struct {
		name     string
		beat     presence.Beat
		wantCode string // "" = valid
		wantIn   string // the error names the field
	}{
		{"minimal", ok, "", ""},
		{"agent_id required", with(func(b *presence.Beat) { b.AgentID = "" }), presence.EINVALID, "agent_id"},
		{"agent_id blank", with(func(b *presence.Beat) { b.AgentID = "   " }), presence.EINVALID, "agent_id"},
		{"brain required", with(func(b *presence.Beat) { b.Brain = "" }), presence.EINVALID, "brain"},
		{"relative brain", with(func(b *presence.Beat) { b.Brain = "home/ana/shop" }), presence.EINVALID, "brain"},
		{"dot brain", with(func(b *presence.Beat) { b.Brain = "./shop" }), presence.EINVALID, "brain"},
		{"relative caller_root", with(func(b *presence.Beat) { b.CallerRoot = "wt" }), presence.EINVALID, "caller_root"},
		{"relative worktree", with(func(b *presence.Beat) { b.Worktree = "wt" }), presence.EINVALID, "worktree"},
		{"agent_id at limit", with(func(b *presence.Beat) { b.AgentID = long(presence.MaxIDLen) }), "", ""},
		{"agent_id over limit", with(func(b *presence.Beat) { b.AgentID = long(presence.MaxIDLen + 1) }), presence.ETOOLARGE, "agent_id"},
		{"kind over limit", with(func(b *presence.Beat) { b.Kind = long(presence.MaxIDLen + 1) }), presence.ETOOLARGE, "kind"},
		{"task_ref over limit", with(func(b *presence.Beat) { b.TaskRef = long(presence.MaxIDLen + 1) }), presence.ETOOLARGE, "task_ref"},
		{"tool over limit", with(func(b *presence.Beat) { b.Tool = long(presence.MaxIDLen + 1) }), presence.ETOOLARGE, "tool"},
		{"theme at limit", with(func(b *presence.Beat) { b.Theme = long(presence.MaxThemeLen) }), "", ""},
		{"theme over limit", with(func(b *presence.Beat) { b.Theme = long(presence.MaxThemeLen + 1) }), presence.ETOOLARGE, "theme"},
		{"declared_intent over limit", with(func(b *presence.Beat) { b.DeclaredIntent = long(presence.MaxThemeLen + 1) }), presence.ETOOLARGE, "declared_intent"},
		{"brain at limit", with(func(b *presence.Beat) { b.Brain = absLong(presence.MaxPathLen) }), "", ""},
		{"brain over limit", with(func(b *presence.Beat) { b.Brain = absLong(presence.MaxPathLen + 1) }), presence.ETOOLARGE, "brain"},
		{"caller_root over limit", with(func(b *presence.Beat) { b.CallerRoot = absLong(presence.MaxPathLen + 1) }), presence.ETOOLARGE, "caller_root"},
		{"worktree over limit", with(func(b *presence.Beat) { b.Worktree = absLong(presence.MaxPathLen + 1) }), presence.ETOOLARGE, "worktree"},
		{"working_set entry over limit", with(func(b *presence.Beat) { b.WorkingSet = []string{"a", long(presence.MaxPathLen + 1)} }), presence.ETOOLARGE, "working_set[1]"},
		{"working_set at 64 entries", with(func(b *presence.Beat) { b.WorkingSet = many(presence.MaxWorkingSetLen) }), "", ""},
		{"working_set over 64 entries", with(func(b *presence.Beat) { b.WorkingSet = many(presence.MaxWorkingSetLen + 1) }), presence.ETOOLARGE, "working_set"},
		{"empty working_set entry", with(func(b *presence.Beat) { b.WorkingSet = []string{"a", ""} }), presence.EINVALID, "working_set[1]"},
		{"newline in theme", with(func(b *presence.Beat) { b.Theme = "a\nb" }), presence.EINVALID, "theme"},
		{"tab in agent_id", with(func(b *presence.Beat) { b.AgentID = "a\tb" }), presence.EINVALID, "agent_id"},
		{"NUL in brain", with(func(b *presence.Beat) { b.Brain = "/a\x00b" }), presence.EINVALID, "brain"},
		{"escape in declared_intent", with(func(b *presence.Beat) { b.DeclaredIntent = "\x1b[31mred" }), presence.EINVALID, "declared_intent"},
		{"DEL in kind", with(func(b *presence.Beat) { b.Kind = "x\x7f" }), presence.EINVALID, "kind"},
		{"C1 control in task_ref", with(func(b *presence.Beat) { b.TaskRef = "x\u0085" }), presence.EINVALID, "task_ref"},
		{"control in working_set entry", with(func(b *presence.Beat) { b.WorkingSet = []string{"a\rb"} }), presence.EINVALID, "working_set[0]"},
		{"invalid UTF-8 in theme", with(func(b *presence.Beat) { b.Theme = "ok\xff" }), presence.EINVALID, "theme"},
		{"invalid UTF-8 in agent_id", with(func(b *presence.Beat) { b.AgentID = "\xc3" }), presence.EINVALID, "agent_id"},
		{"invalid UTF-8 in working_set", with(func(b *presence.Beat) { b.WorkingSet = []string{"\xfe"} }), presence.EINVALID, "working_set[0]"},
		{"unicode theme is fine", with(func(b *presence.Beat) { b.Theme = "réparer le panier 🛒" }), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.beat.Normalize()
			if gotCode := presence.ErrorCode(err); gotCode != tt.wantCode {
				t.Fatalf("Normalize: got code %q (%v), want %q", gotCode, err, tt.wantCode)
			}
			if err != nil {
				if !strings.Contains(presence.ErrorMessage(err), tt.wantIn) {
					t.Errorf("error %q: want it to name %q", presence.ErrorMessage(err), tt.wantIn)
				}
				if !reflect.DeepEqual(got, presence.Beat{}) {
					t.Errorf("Normalize on error: got %+v, want the zero Beat", got)
				}
			}
		})
	}
}

func TestBeatNormalizeCanonicalizes(t *testing.T) {
	dir := t.TempDir() // may sit behind a symlink (macOS /var): canonical resolves it
	want, err := presence.CanonicalPath(dir)
	if err != nil {
		t.Fatalf("CanonicalPath: %v", err)
	}
	b, err := presence.Beat{
		AgentID:    "a",
		Brain:      dir + "/./sub/..",
		CallerRoot: "/nonexistent/x/../y/",
		Worktree:   dir + "/",
		WorkingSet: []string{"src/./auth/", "/abs//p"},
	}.Normalize()
	if err != nil {
		t.Fatalf("Normalize: %v", err)
	}
	if b.Brain != want || b.Worktree != want {
		t.Errorf("brain, worktree: got %q, %q, want %q", b.Brain, b.Worktree, want)
	}
	if got, want := b.CallerRoot, "/nonexistent/y"; got != want {
		t.Errorf("caller_root: got %q, want %q", got, want)
	}
	if got, want := b.WorkingSet, []string{"src/auth", "/abs/p"}; !reflect.DeepEqual(got, want) {
		t.Errorf("working_set: got %q, want %q", got, want)
	}
	b, err = presence.Beat{AgentID: "a", Brain: "/b"}.Normalize()
	if err != nil || b.WorkingSet != nil {
		t.Errorf("absent working_set: got %#v, %v, want nil, no error", b.WorkingSet, err)
	}
	b, err = presence.Beat{AgentID: "a", Brain: "/b", WorkingSet: []string{}}.Normalize()
	if err != nil || b.WorkingSet == nil || len(b.WorkingSet) != 0 {
		t.Errorf("empty working_set: got %#v, %v, want a non-nil empty slice (it clears the set)", b.WorkingSet, err)
	}
}
