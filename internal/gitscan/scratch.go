package gitscan

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// DefaultMaxScratchBytes bounds the scanner's scratch objects on disk.
const DefaultMaxScratchBytes = 256 << 20

// scratchCheckEvery is how many snapshots pass between two measures of
// the scratch directory's size.
const scratchCheckEvery = 32

// Scratch is where the scanner's snapshots and merge predictions write
// their objects: one object directory per repository under a directory
// the Hall owns, the repository's own objects read as alternates, so
// nothing is ever written into a user's repository. It is bounded: past
// its size it starts a new generation and drops the one before the last
// (a snapshot cached from a dropped generation is taken again). Safe for
// concurrent use.
type Scratch struct {
	root string
	max  int64

	mu    sync.Mutex
	gen   int // the generation written now; gen-1 is still read
	taken int // snapshots since the size was last measured
}

// NewScratch keeps scratch objects under root (made 0700 as needed), at
// most max bytes (DefaultMaxScratchBytes when 0): a directory of the
// caller's own, which it removes when done.
func NewScratch(root string, max int64) (*Scratch, error) {
	if max <= 0 {
		max = DefaultMaxScratchBytes
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	return &Scratch{root: root, max: max}, nil
}

// Root is the scratch's directory.
func (s *Scratch) Root() string { return s.root }

// dir is the object directory of one generation for one repository.
func (s *Scratch) dir(gen int, gitDir string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(gitDir)))
	return filepath.Join(s.root, strconv.Itoa(gen), hex.EncodeToString(sum[:8]), "objects")
}

// env makes git write new objects into the current generation and read
// both live generations, then the repository's own.
func (s *Scratch) env(gitDir string) ([]string, int, error) {
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	dir := s.dir(gen, gitDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, 0, err
	}
	alt := []string{}
	if gen > 0 {
		alt = append(alt, s.dir(gen-1, gitDir))
	}
	alt = append(alt, filepath.Join(gitDir, "objects"))
	return []string{"GIT_OBJECT_DIRECTORY=" + dir, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + strings.Join(alt, string(os.PathListSeparator))}, gen, nil
}

// pairEnv is env for a merge of two snapshots, of the repository at
// gitDir and of the one at other (a clone of the same repository
// elsewhere on this machine; other == gitDir: env): new objects go into
// gitDir's current generation, and both repositories' live generations
// and own objects are read, so git finds both snapshots and the history
// they share. Nothing is written into either repository.
func (s *Scratch) pairEnv(gitDir, other string) ([]string, error) {
	env, gen, err := s.env(gitDir)
	if err != nil || filepath.Clean(other) == filepath.Clean(gitDir) {
		return env, err
	}
	alt := []string{}
	if gen > 0 {
		alt = append(alt, s.dir(gen-1, gitDir))
	}
	alt = append(alt, s.dir(gen, other))
	if gen > 0 {
		alt = append(alt, s.dir(gen-1, other))
	}
	alt = append(alt, filepath.Join(gitDir, "objects"), filepath.Join(other, "objects"))
	return []string{env[0], "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + strings.Join(alt, string(os.PathListSeparator))}, nil
}

// Env is the environment that has git read and write objects of the
// repository at gitDir as the scanner does: new ones in the scratch, the
// repository's read as alternates.
func (s *Scratch) Env(gitDir string) ([]string, error) { return s.envFor(gitDir) }

// envFor is env for a snapshot, its generation dropped.
func (s *Scratch) envFor(gitDir string) ([]string, error) {
	e, _, err := s.env(gitDir)
	return e, err
}

// live reports whether objects of generation gen can still be read.
func (s *Scratch) live(gen int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return gen >= s.gen-1
}

// Took counts a snapshot taken into the scratch by a caller other than
// the scanner (which counts its own), so the scratch stays bounded.
func (s *Scratch) Took() { s.took() }

// Objects are the object directories a snapshot of the repository at
// gitDir is read from: the scratch's live generations, then the
// repository's own.
func (s *Scratch) Objects(gitDir string) []string {
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	dirs := []string{s.dir(gen, gitDir)}
	if gen > 0 {
		dirs = append(dirs, s.dir(gen-1, gitDir))
	}
	return append(dirs, filepath.Join(gitDir, "objects"))
}

// took counts a snapshot and, every scratchCheckEvery of them, measures
// the scratch: past its bound a new generation starts and the one before
// the last is removed.
func (s *Scratch) took() {
	s.mu.Lock()
	s.taken++
	if s.taken < scratchCheckEvery {
		s.mu.Unlock()
		return
	}
	s.taken = 0
	s.mu.Unlock()
	var size int64
	_ = filepath.WalkDir(s.root, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	if size <= s.max {
		return
	}
	s.mu.Lock()
	s.gen++
	drop := s.gen - 2
	s.mu.Unlock()
	if drop >= 0 {
		_ = os.RemoveAll(filepath.Join(s.root, strconv.Itoa(drop)))
	}
}
