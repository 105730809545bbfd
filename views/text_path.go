package views

import (
	"context"
	"io"
	"strings"

	"github.com/a-h/templ"
)

// ShortPath shortens a path for a narrow cell: the last two segments after
// an ellipsis. The full path goes in the title.
func ShortPath(p string) string {
	trimmed := strings.TrimRight(p, "/")
	if trimmed == "" {
		return p
	}
	segs := strings.Split(strings.TrimLeft(trimmed, "/"), "/")
	if len(segs) <= 2 {
		return p
	}
	return "…/" + strings.Join(segs[len(segs)-2:], "/")
}

// ShortWhere shortens where a presence works for the drill: relative to
// the folder that holds its brain when it lies there ("shop-wt2",
// "shop/.worktrees/wt2"), since worktrees sit beside or inside the brain;
// else as ShortPath.
func ShortWhere(p, brain string) string {
	parent := strings.TrimRight(brain, "/")
	if i := strings.LastIndex(parent, "/"); i > 0 {
		parent = parent[:i]
		if rel, ok := strings.CutPrefix(strings.TrimRight(p, "/"), parent+"/"); ok && rel != "" {
			if segs := strings.Split(rel, "/"); len(segs) > 3 {
				return "…/" + strings.Join(segs[len(segs)-2:], "/")
			}
			return rel
		}
	}
	return ShortPath(p)
}

// BaseName is a brain's last segment, how people name a repository.
func BaseName(p string) string {
	trimmed := strings.TrimRight(p, "/")
	if i := strings.LastIndex(trimmed, "/"); i >= 0 && i < len(trimmed)-1 {
		return trimmed[i+1:]
	}
	if trimmed == "" {
		return p
	}
	return trimmed
}

// PathSegments splits a path after each slash: "/a/b" is "/", "a/", "b".
// Joined, the segments are the path again.
func PathSegments(p string) []string {
	var out []string
	for p != "" {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			out = append(out, p)
			break
		}
		out = append(out, p[:i+1])
		p = p[i+1:]
	}
	return out
}

// PathText writes a path, escaped, with a line-break opportunity (<wbr>)
// after each slash, so a narrow cell wraps it between segments rather than
// inside a name. It is written in Go because templ would put a space
// between the segments.
func PathText(p string) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		for i, seg := range PathSegments(p) {
			if i > 0 {
				if _, err := io.WriteString(w, "<wbr>"); err != nil {
					return err
				}
			}
			if _, err := io.WriteString(w, templ.EscapeString(seg)); err != nil {
				return err
			}
		}
		return nil
	})
}
