package recovery

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// A file's name is bytes, as git keeps it: a name that is not UTF-8
// (Latin-1 "caf\xe9.txt") is a file like any other. JSON strings are
// UTF-8, and encoding/json writes each invalid byte as U+FFFD, so such a
// name travels twice: "path", the display name (U+FFFD where a byte is
// not UTF-8), and beside it "path_bytes", the exact bytes in base64,
// present only when the two differ. Decoding takes path_bytes when it is
// there (docs/recovery.md).

// fileJSON is File on the wire.
type fileJSON struct {
	Path      string `json:"path"`
	PathBytes []byte `json:"path_bytes,omitempty"`
	Mode      uint32 `json:"mode"`
	State     string `json:"state"`
	Symlink   bool   `json:"symlink,omitempty"`
}

// MarshalJSON writes the name's bytes beside it when it is not UTF-8.
func (f File) MarshalJSON() ([]byte, error) {
	return json.Marshal(fileJSON{Path: f.Path, PathBytes: nameBytes(f.Path), Mode: f.Mode, State: f.State, Symlink: f.Symlink})
}

// UnmarshalJSON reads the name's bytes where they were written.
func (f *File) UnmarshalJSON(b []byte) error {
	var j fileJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = File{Path: nameFrom(j.Path, j.PathBytes), Mode: j.Mode, State: j.State, Symlink: j.Symlink}
	return nil
}

// fileDiffJSON is FileDiff on the wire.
type fileDiffJSON struct {
	Path      string `json:"path"`
	PathBytes []byte `json:"path_bytes,omitempty"`
	State     string `json:"state"`
	Patch     string `json:"patch,omitempty"`
	Why       string `json:"why,omitempty"`
}

// MarshalJSON writes the name's bytes beside it when it is not UTF-8.
func (d FileDiff) MarshalJSON() ([]byte, error) {
	return json.Marshal(fileDiffJSON{Path: d.Path, PathBytes: nameBytes(d.Path), State: d.State, Patch: d.Patch, Why: d.Why})
}

// UnmarshalJSON reads the name's bytes where they were written.
func (d *FileDiff) UnmarshalJSON(b []byte) error {
	var j fileDiffJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*d = FileDiff{Path: nameFrom(j.Path, j.PathBytes), State: j.State, Patch: j.Patch, Why: j.Why}
	return nil
}

// Refusal is a file of a snapshot a restore did not write, and why.
type Refusal struct {
	Path string `json:"path"`
	Why  string `json:"why"`
}

// refusalJSON is Refusal on the wire.
type refusalJSON struct {
	Path      string `json:"path"`
	PathBytes []byte `json:"path_bytes,omitempty"`
	Why       string `json:"why"`
}

// MarshalJSON writes the name's bytes beside it when it is not UTF-8.
func (r Refusal) MarshalJSON() ([]byte, error) {
	return json.Marshal(refusalJSON{Path: r.Path, PathBytes: nameBytes(r.Path), Why: r.Why})
}

// UnmarshalJSON reads the name's bytes where they were written.
func (r *Refusal) UnmarshalJSON(b []byte) error {
	var j refusalJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Refusal{Path: nameFrom(j.Path, j.PathBytes), Why: j.Why}
	return nil
}

// nameBytes is a name's bytes where JSON's string would lose them.
func nameBytes(name string) []byte {
	if utf8.ValidString(name) {
		return nil
	}
	return []byte(name)
}

// nameFrom is the name a record holds: its bytes, when written.
func nameFrom(display string, b []byte) string {
	if len(b) > 0 {
		return string(b)
	}
	return display
}

// The reasons checkName gives.
var (
	errNameEmpty    = errors.New("an empty name or an empty component")
	errNameAbsolute = errors.New("an absolute path")
	errNameDots     = errors.New("a . or .. component, which leads out of its directory")
	errNameGit      = errors.New("a .git component, which is git's own directory")
)

// checkName tells whether a tree entry's path is a clean relative path a
// restore may write beneath its root: not empty, not absolute, no empty,
// "." or ".." component, no component git itself keeps (".git", in any
// case, as git's own verify_path refuses it). git's tools never put such
// a name in a tree; a hand-made index or object can (issue 40).
func checkName(p string) error {
	switch {
	case p == "":
		return errNameEmpty
	case strings.HasPrefix(p, "/"):
		return errNameAbsolute
	}
	for c := range strings.SplitSeq(p, "/") {
		switch {
		case c == "":
			return errNameEmpty
		case c == "." || c == "..":
			return errNameDots
		case strings.EqualFold(c, ".git"):
			return errNameGit
		}
	}
	return nil
}

// refuseNames takes out of a snapshot's changed files those whose path
// checkName refuses, as refusals for its record (at most MaxFiles).
func refuseNames(list []changed) ([]changed, []Refusal) {
	var refused []Refusal
	kept := list[:0]
	for _, c := range list {
		if err := checkName(c.path); err != nil {
			if len(refused) < MaxFiles {
				refused = append(refused, Refusal{Path: c.path, Why: err.Error()})
			}
			continue
		}
		kept = append(kept, c)
	}
	return kept, refused
}
