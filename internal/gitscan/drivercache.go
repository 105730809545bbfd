package gitscan

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// maxDriverDirs bounds the directories a driverCache keeps; past it the
// cache starts again empty.
const maxDriverDirs = 1024

// maxSourceBytes bounds a configuration file the cache compares by its
// bytes; a directory reading a larger one is not cached (read each time).
const maxSourceBytes = 256 << 10

// driverCache keeps driverConfig's answer for each directory with what
// it was read from (every configuration file git read there, every file
// an include names, the global and system files whether there or not,
// and the .git and config of the directory and each folder above it,
// which say which repository git finds): a later call compares those
// (bytes of files, identity of directories; microseconds) and lists
// again only when one changed. Without it every git status and git add
// would cost a git config first. A configuration that includes on a
// condition that depends on more than files (onbranch: HEAD) or that
// names files by git's install prefix, or that reads per-worktree
// configuration, is not cached. Safe for concurrent use.
type driverCache struct {
	mu    sync.Mutex
	byDir map[string]driverEntry
}

type driverEntry struct {
	config  [][2]string
	sources []source
}

// source is one file or directory an answer was read from, as it was.
type source struct {
	path string
	seen sourceState
}

// sourceState is what a path held: nothing, a directory (its identity),
// or a file's bytes.
type sourceState struct {
	absent bool
	dir    os.FileInfo // for os.SameFile
	bytes  string
	ok     bool // false: unreadable or too large to compare
}

func readSource(path string) sourceState {
	info, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return sourceState{absent: true, ok: true}
	case err != nil:
		return sourceState{}
	case info.IsDir():
		return sourceState{dir: info, ok: true}
	case !info.Mode().IsRegular() || info.Size() > maxSourceBytes:
		return sourceState{}
	}
	f, err := os.Open(path)
	if err != nil {
		return sourceState{}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSourceBytes+1))
	if err != nil || len(b) > maxSourceBytes {
		return sourceState{}
	}
	return sourceState{bytes: string(b), ok: true}
}

func (s sourceState) same(t sourceState) bool {
	switch {
	case !s.ok || !t.ok:
		return false
	case s.absent || t.absent:
		return s.absent == t.absent
	case s.dir != nil || t.dir != nil:
		return s.dir != nil && t.dir != nil && os.SameFile(s.dir, t.dir)
	}
	return s.bytes == t.bytes
}

// get answers the directory's kept configuration if nothing it was read
// from changed since.
func (c *driverCache) get(dir string) ([][2]string, bool) {
	c.mu.Lock()
	e, ok := c.byDir[dir]
	c.mu.Unlock()
	if !ok {
		return nil, false
	}
	for _, s := range e.sources {
		if !readSource(s.path).same(s.seen) {
			return nil, false
		}
	}
	return e.config, true
}

func (c *driverCache) put(dir string, e driverEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byDir == nil || len(c.byDir) >= maxDriverDirs {
		c.byDir = map[string]driverEntry{}
	}
	c.byDir[dir] = e
}

// configRecord is one setting git config --list --show-origin --null
// answered: where from, its key (section and key lower case, the name
// between as written) and its value.
type configRecord struct {
	origin, key, value string
}

// parseConfigList reads git config --null --show-origin --list: each
// record "origin NUL key [NL value] NUL".
func parseConfigList(b []byte) []configRecord {
	fields := bytes.Split(b, []byte{0})
	var recs []configRecord
	for i := 0; i+1 < len(fields); i += 2 {
		key, value, _ := strings.Cut(string(fields[i+1]), "\n")
		recs = append(recs, configRecord{origin: string(fields[i]), key: key, value: value})
	}
	return recs
}

// configSources are the paths the configuration recs (listed in dir)
// depend on, read now; ok is false when it cannot be kept by them.
func configSources(dir string, recs []configRecord) (sources []source, ok bool) {
	paths := map[string]bool{}
	add := func(p string) { paths[filepath.Clean(p)] = true }
	home, _ := os.UserHomeDir()
	for _, r := range recs {
		origin, isFile := strings.CutPrefix(r.origin, "file:")
		switch {
		case r.origin == "command line:":
			continue // the runner's own
		case !isFile:
			return nil, false
		}
		if !filepath.IsAbs(origin) {
			origin = filepath.Join(dir, origin)
		}
		add(origin)
		lower := strings.ToLower(r.key)
		switch {
		case lower == "extensions.worktreeconfig":
			return nil, false
		case strings.HasPrefix(lower, "includeif.onbranch:"):
			return nil, false
		case lower == "include.path" || (strings.HasPrefix(lower, "includeif.") && strings.HasSuffix(lower, ".path")):
			p := r.value
			switch {
			case strings.HasPrefix(p, "%("):
				return nil, false
			case strings.HasPrefix(p, "~/") && home != "":
				p = filepath.Join(home, p[2:])
			case !filepath.IsAbs(p):
				p = filepath.Join(filepath.Dir(origin), p)
			}
			add(p)
		}
	}
	// The files git reads whether they are there or not.
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		add(g)
	} else if home != "" {
		add(filepath.Join(home, ".gitconfig"))
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		add(filepath.Join(xdg, "git", "config"))
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		if s := os.Getenv("GIT_CONFIG_SYSTEM"); s != "" {
			add(s)
		} else {
			add("/etc/gitconfig")
		}
	}
	// Which repository git finds from dir: a .git (folder or file) or a
	// git directory's own config, in dir or a folder above.
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		add(filepath.Join(d, ".git"))
		add(filepath.Join(d, "config"))
		if filepath.Dir(d) == d {
			break
		}
	}
	for p := range paths {
		s := readSource(p)
		if !s.ok {
			return nil, false
		}
		sources = append(sources, source{path: p, seen: s})
	}
	return sources, true
}
