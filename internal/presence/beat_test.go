package presence_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/presence/presencetest"
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
		// Identifiers: no format character (Cf), so two rows never read
		// "claude-7" while being two agents.
		{"zero-width space in agent_id", with(func(b *presence.Beat) { b.AgentID = "claude-\u200b7" }), presence.EINVALID, "agent_id"},
		{"zero-width joiner in agent_id", with(func(b *presence.Beat) { b.AgentID = "claude\u200d-7" }), presence.EINVALID, "agent_id"},
		{"BOM in agent_id", with(func(b *presence.Beat) { b.AgentID = "\ufeffclaude-7" }), presence.EINVALID, "agent_id"},
		{"soft hyphen in kind", with(func(b *presence.Beat) { b.Kind = "exec\u00adutor" }), presence.EINVALID, "kind"},
		{"word joiner in task_ref", with(func(b *presence.Beat) { b.TaskRef = "msn\u2060_1" }), presence.EINVALID, "task_ref"},
		{"tag character in tool", with(func(b *presence.Beat) { b.Tool = "Edit\U000e0041" }), presence.EINVALID, "tool"},
		{"right-to-left override in agent_id", with(func(b *presence.Beat) { b.AgentID = "\u202e7-edualc" }), presence.EINVALID, "agent_id"},
		// Shown text may hold a zero-width joiner (emoji sequences) but
		// no bidi control, anywhere.
		{"zero-width joiner in theme is fine", with(func(b *presence.Beat) { b.Theme = "family 👩\u200d👧" }), "", ""},
		{"right-to-left override in theme", with(func(b *presence.Beat) { b.Theme = "fix \u202egnp.exe" }), presence.EINVALID, "theme"},
		{"left-to-right isolate in declared_intent", with(func(b *presence.Beat) { b.DeclaredIntent = "edit \u2066x\u2069" }), presence.EINVALID, "declared_intent"},
		{"arabic letter mark in brain", with(func(b *presence.Beat) { b.Brain = "/srv/\u061cshop" }), presence.EINVALID, "brain"},
		{"right-to-left mark in caller_root", with(func(b *presence.Beat) { b.CallerRoot = "/srv/\u200fwt" }), presence.EINVALID, "caller_root"},
		{"left-to-right embedding in worktree", with(func(b *presence.Beat) { b.Worktree = "/srv/\u202awt" }), presence.EINVALID, "worktree"},
		{"pop directional formatting in working_set", with(func(b *presence.Beat) { b.WorkingSet = []string{"ok", "src/\u202c"} }), presence.EINVALID, "working_set[1]"},
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

// TestBeatRefusesAPathThatResolvesPastTheLimit: a brain short as given but
// longer than MaxPathLen once its symlinks are resolved is refused, as
// the record it would make is refused at read.
func TestBeatRefusesAPathThatResolvesPastTheLimit(t *testing.T) {
	deep := t.TempDir()
	for len(deep) <= presence.MaxPathLen {
		deep = filepath.Join(deep, strings.Repeat("d", 200))
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "short")
	if err := os.Symlink(deep, link); err != nil {
		t.Fatal(err)
	}
	_, err := presence.Beat{AgentID: "a", Brain: link}.Normalize()
	if presence.ErrorCode(err) != presence.ETOOLARGE || !strings.Contains(presence.ErrorMessage(err), "brain resolves to") {
		t.Errorf("brain %s → %d bytes: got %v, want too_large naming the brain", link, len(deep), err)
	}
}

// TestDecodeRecordHasNoLengthLimits: a record read from a store is read as
// m1nd's serde reads it: past every limit a beat is held to, and with a
// brain or a worktree in any form, it decodes as written (issue 41: m1nd
// writes such records, and the Hall skipped them whole).
func TestDecodeRecordHasNoLengthLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	abs := func(n int) string { return "/" + long(n-1) }
	ws := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("src/f%d.go", i)
		}
		return out
	}
	tests := []struct {
		name string
		set  func(r *presence.Record)
	}{
		{"agent_id over a beat's limit", func(r *presence.Record) { r.AgentID = long(presence.MaxIDLen + 1) }},
		{"kind over", func(r *presence.Record) { r.Kind = long(presence.MaxIDLen + 1) }},
		{"task_ref over", func(r *presence.Record) { r.TaskRef = long(presence.MaxIDLen + 1) }},
		{"schema over", func(r *presence.Record) { r.Schema = long(presence.MaxIDLen + 1) }},
		{"theme over", func(r *presence.Record) { r.Theme = long(presence.MaxThemeLen + 1) }},
		{"declared_intent over", func(r *presence.Record) { r.Mutation.DeclaredIntent = long(presence.MaxThemeLen + 1) }},
		{"brain over", func(r *presence.Record) { r.Brain = abs(presence.MaxPathLen + 1) }},
		{"caller_root over", func(r *presence.Record) { r.CallerRoot = abs(presence.MaxPathLen + 1) }},
		{"worktree over", func(r *presence.Record) { r.Worktree = abs(presence.MaxPathLen + 1) }},
		{"working set of 65", func(r *presence.Record) { r.WorkingSet = ws(presence.MaxWorkingSetLen + 1) }},
		{"working set of 20,000", func(r *presence.Record) { r.WorkingSet = ws(20_000) }},
		{"a working-set entry over", func(r *presence.Record) { r.WorkingSet = []string{"a", long(presence.MaxPathLen + 1)} }},
		{"a brain not clean", func(r *presence.Record) { r.Brain = "/srv/shop/" }},
		{"a relative brain", func(r *presence.Record) { r.Brain = "shop" }},
		{"a declared worktree string", func(r *presence.Record) { r.Worktree = "feat/x" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := presencetest.Rec("a", "/b")
			tt.set(&want)
			data, err := presence.EncodeRecord(want)
			if err != nil {
				t.Fatal(err)
			}
			got, err := presence.DecodeRecord(data)
			if err != nil {
				t.Fatalf("DecodeRecord: got %v, want it decoded (m1nd's serde has no length limit)", err)
			}
			if !got.Equal(&want) {
				t.Errorf("DecodeRecord: got %+v, want it as written %+v", got, want)
			}
		})
	}
}

// Every bidi control is refused in shown text, and every format character
// in identifiers; the error names the field and the code point.
func TestCheckTextCharacters(t *testing.T) {
	bidi := []rune{0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069}
	for _, r := range bidi {
		v := "a" + string(r) + "b"
		if err := presence.CheckText("theme", v, presence.MaxThemeLen); presence.ErrorCode(err) != presence.EINVALID || !strings.Contains(presence.ErrorMessage(err), "theme") {
			t.Errorf("CheckText(theme, %+q): got %v, want EINVALID naming theme", v, err)
		}
		if err := presence.CheckIdentifier("agent_id", v, presence.MaxIDLen); presence.ErrorCode(err) != presence.EINVALID {
			t.Errorf("CheckIdentifier(agent_id, %+q): got %v, want EINVALID", v, err)
		}
	}
	format := []rune{0x00ad, 0x0600, 0x180e, 0x200b, 0x200c, 0x200d, 0x2060, 0x2064, 0xfeff, 0xfff9, 0x110bd, 0xe0001, 0xe007f}
	for _, r := range format {
		v := "claude" + string(r) + "-7"
		err := presence.CheckIdentifier("agent_id", v, presence.MaxIDLen)
		if presence.ErrorCode(err) != presence.EINVALID || !strings.Contains(presence.ErrorMessage(err), "agent_id") || !strings.Contains(presence.ErrorMessage(err), fmt.Sprintf("%U", r)) {
			t.Errorf("CheckIdentifier(agent_id, %+q): got %v, want EINVALID naming agent_id and %U", v, err, r)
		}
	}
	for _, v := range []string{"claude-7", "réparer", "日本語", "🛒", "a b", ""} {
		if err := presence.CheckIdentifier("agent_id", v, presence.MaxIDLen); err != nil {
			t.Errorf("CheckIdentifier(%q): %v, want nil", v, err)
		}
	}
}
