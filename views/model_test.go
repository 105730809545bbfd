package views

import (
	"context"
	"strings"
	"testing"
)

func TestShortWhere(t *testing.T) {
	tests := []struct{ path, brain, want string }{
		{"/home/ana/shop-wt2", "/home/ana/shop", "shop-wt2"},
		{"/home/ana/shop", "/home/ana/shop", "shop"},
		{"/home/ana/shop/.worktrees/wt2", "/home/ana/shop", "shop/.worktrees/wt2"},
		{"/home/ana/shop/a/b/c/d", "/home/ana/shop", "…/c/d"},
		{"/elsewhere/deep/checkout/wt", "/home/ana/shop", "…/checkout/wt"},
		{"/tmp/x", "/home/ana/shop", "/tmp/x"},
		{"/shop-wt", "/shop", "/shop-wt"}, // a brain at the root has no folder to strip
		{"/home/ana/shopping", "/home/ana/shop", "shopping"},
	}
	for _, tt := range tests {
		if got := ShortWhere(tt.path, tt.brain); got != tt.want {
			t.Errorf("ShortWhere(%q, %q): got %q, want %q", tt.path, tt.brain, got, tt.want)
		}
	}
}

func TestShortPathAndBaseName(t *testing.T) {
	tests := []struct{ path, short, base string }{
		{"/a/b/c/d", "…/c/d", "d"},
		{"/a/b", "/a/b", "b"},
		{"/a/b/", "/a/b/", "b"},
		{"/", "/", "/"},
		{"rel/x/y", "…/x/y", "y"},
	}
	for _, tt := range tests {
		if got := ShortPath(tt.path); got != tt.short {
			t.Errorf("ShortPath(%q): got %q, want %q", tt.path, got, tt.short)
		}
		if got := BaseName(tt.path); got != tt.base {
			t.Errorf("BaseName(%q): got %q, want %q", tt.path, got, tt.base)
		}
	}
}

func TestPathText(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/a/b", "/<wbr>a/<wbr>b"},
		{"go.mod", "go.mod"},
		{"src/auth/", "src/<wbr>auth/"},
		{`/x/"><img src=y>`, `/<wbr>x/<wbr>&#34;&gt;&lt;img src=y&gt;`},
		{"", ""},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := PathText(tt.path).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("PathText(%q): got %q, want %q", tt.path, b.String(), tt.want)
		}
		if got := strings.Join(PathSegments(tt.path), ""); got != tt.path {
			t.Errorf("PathSegments(%q) joined: got %q", tt.path, got)
		}
	}
}

func TestLabels(t *testing.T) {
	if got := BrainURL("/home/ana/my shop&x"); got != "/?brain=%2Fhome%2Fana%2Fmy+shop%26x" {
		t.Errorf("BrainURL: got %q", got)
	}
	if got := BrainURL(""); got != "/" {
		t.Errorf("BrainURL all: got %q", got)
	}
	for n, want := range map[int]string{0: "", 1: "⚠ 1 collision", 3: "⚠ 3 collisions"} {
		if got := CollisionWarning(n); got != want {
			t.Errorf("CollisionWarning(%d): got %q, want %q", n, got, want)
		}
	}
	if got := ClauseText([]string{"same_caller_root", "same_worktree", "working_set_overlap", "new_clause"}); got != "same caller root, same worktree, working sets overlap, new_clause" {
		t.Errorf("ClauseText: got %q", got)
	}
}
