package views

import (
	"bytes"
	"context"
	"errors"
	"hash/fnv"
	"io"
	"strconv"

	"github.com/a-h/templ"
	templruntime "github.com/a-h/templ/runtime"
)

// A region of the live page, rendered alone (GET /fragments/…), carries on
// its root a hash of its bytes (data-hash), and a page that lists the hash
// in X-Hall-Have is not sent the region again; the roster's rows carry
// their signature (data-h), and a row the page has is sent as its opening
// tag alone. Both are the templates' doing: a region's root writes
// data-hash={ regionHash(ctx) } and wraps its content in @regionBody(), a
// keyed row wraps its cells in @rowCells(sig). RenderRegion renders the
// content once, hashes the region around it, and writes the root again
// with the hash around the same content, noting where each row's cells
// lie; nothing reads the HTML back.

// Region is one region rendered for the live page: its root's opening
// tag, its content and its closing tag, as frame[:at] + content +
// frame[at:], so the content is written once and never copied.
type Region struct {
	Hash    string // what its root's data-hash says
	frame   []byte
	at      int
	content []byte
	rows    []rowSpan // where each keyed row's cells lie in content, in order
}

// rowSpan is the cells of one keyed row: content[start:end].
type rowSpan struct {
	sig        string
	start, end int
}

// Bytes is the region whole.
func (r Region) Bytes() []byte {
	out := make([]byte, 0, len(r.frame)+len(r.content))
	out = append(out, r.frame[:r.at]...)
	out = append(out, r.content...)
	return append(out, r.frame[r.at:]...)
}

// WriteWithout writes the region, leaving out the cells of each row whose
// signature have holds: the page keeps such a row as it is, and still
// finds it by its opening tag.
func (r Region) WriteWithout(w io.Writer, have map[string]bool) error {
	if _, err := w.Write(r.frame[:r.at]); err != nil {
		return err
	}
	copied := 0
	for _, s := range r.rows {
		if have[s.sig] {
			if _, err := w.Write(r.content[copied:s.start]); err != nil {
				return err
			}
			copied = s.end
		}
	}
	if _, err := w.Write(r.content[copied:]); err != nil {
		return err
	}
	_, err := w.Write(r.frame[r.at:])
	return err
}

// regionState is a region while RenderRegion renders it.
type regionState struct {
	hash    string        // "" while hashing: the root writes no data-hash
	body    *bytes.Buffer // the region's content, rendered once
	rows    []rowSpan     // in body
	written bool          // the content has been rendered
	frame   *bytes.Buffer // the root around the content, with the hash
	bodyAt  int           // where the content goes in frame
}

type regionKey struct{}

// RenderRegion renders c, one region of the page, for the live page: its
// root marked with the hash of the region as it renders without the mark,
// and the place of each keyed row noted.
func RenderRegion(ctx context.Context, c templ.Component) (Region, error) {
	st := &regionState{body: new(bytes.Buffer), frame: new(bytes.Buffer)}
	ctx = context.WithValue(ctx, regionKey{}, st)
	h := fnv.New64a()
	if err := c.Render(ctx, h); err != nil {
		return Region{}, err
	}
	if !st.written {
		return Region{}, errors.New("render region: its root holds no @regionBody()")
	}
	st.hash = strconv.FormatUint(h.Sum64(), 36)
	st.bodyAt = -1
	if err := c.Render(ctx, st.frame); err != nil {
		return Region{}, err
	}
	if st.bodyAt < 0 {
		return Region{}, errors.New("render region: its content was not placed again")
	}
	return Region{Hash: st.hash, frame: st.frame.Bytes(), at: st.bodyAt, content: st.body.Bytes(), rows: st.rows}, nil
}

// regionOf is the region being rendered for the live page whose root is
// at hand: nil in a whole page, and inside a region's content (a region
// within a region, the drill in the strip, is not marked).
func regionOf(ctx context.Context) *regionState {
	st, _ := ctx.Value(regionKey{}).(*regionState)
	return st
}

// regionHash is what a region's root writes as data-hash: "" (no
// attribute) in a whole page and while the region is being hashed.
func regionHash(ctx context.Context) string {
	if st := regionOf(ctx); st != nil {
		return st.hash
	}
	return ""
}

// regionBody holds a region's content, its root's only child: rendered
// once, while the region is hashed; when the root is written again with
// its hash, only the content's place is noted.
func regionBody() templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		content := templ.GetChildren(ctx)
		ctx = templ.ClearChildren(ctx)
		st := regionOf(ctx)
		if st == nil {
			return content.Render(ctx, w)
		}
		inner := context.WithValue(ctx, regionKey{}, (*regionState)(nil))
		if st.hash == "" { // hashing: render the content once, keyed rows noted
			if st.written {
				return errors.New("render region: more than one @regionBody()")
			}
			st.written = true
			bw, _ := templruntime.GetBuffer(st.body)
			err := content.Render(context.WithValue(inner, rowsKey{}, st), bw)
			if ferr := templruntime.ReleaseBuffer(bw); err == nil {
				err = ferr
			}
			if err != nil {
				return err
			}
			_, err = w.Write(st.body.Bytes())
			return err
		}
		if st.bodyAt >= 0 {
			return errors.New("render region: more than one @regionBody()")
		}
		at, err := offset(w, st.frame)
		st.bodyAt = at
		return err
	})
}

type rowsKey struct{}

// rowCells holds the cells of a keyed row (a roster row), whose opening
// tag carries sig as data-h: a fragment leaves them out for a page that
// has the row.
func rowCells(sig string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		cells := templ.GetChildren(ctx)
		ctx = templ.ClearChildren(ctx)
		st, _ := ctx.Value(rowsKey{}).(*regionState)
		if st == nil {
			return cells.Render(ctx, w)
		}
		start, err := offset(w, st.body)
		if err != nil {
			return err
		}
		if err := cells.Render(ctx, w); err != nil {
			return err
		}
		end, err := offset(w, st.body)
		if err != nil {
			return err
		}
		st.rows = append(st.rows, rowSpan{sig: sig, start: start, end: end})
		return nil
	})
}

// offset is how much of a region has reached under, w's destination, once
// w has passed on what it holds.
func offset(w io.Writer, under *bytes.Buffer) (int, error) {
	b, ok := w.(*templruntime.Buffer)
	if !ok || b.Underlying != io.Writer(under) {
		return 0, errors.New("render region: a marked part is written elsewhere than the region")
	}
	if err := b.Flush(); err != nil {
		return 0, err
	}
	return under.Len(), nil
}
