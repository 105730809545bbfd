package gittest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CartPath is the file every clone of Clones starts with, the one the
// recorded hook payloads edit (internal/hooktest).
const CartPath = "src/checkout/cart.go"

// CartLines is CartPath's content:
// 20 numbered lines, some replaced (by line number), so two clones can
// change one line (a conflict) or two lines apart (a clean merge).
func CartLines(replace map[int]string) string {
	var b strings.Builder
	b.WriteString("package checkout\n\n")
	for i := 3; i <= 20; i++ {
		if s, ok := replace[i]; ok {
			fmt.Fprintln(&b, s)
			continue
		}
		fmt.Fprintf(&b, "// line %d\n", i)
	}
	return b.String()
}

// ClonesOf is a team's repository on one machine (issue #43): a bare
// repository as the shared remote, and clones of it at different paths,
// each reaching the remote by a URL of its own.
type ClonesOf struct {
	Bare string // the shared remote
	// Ana is cloned over a file:// URL, Bob over a plain path, Carol
	// over a git@example.invalid:o/r.git URL that her clone's
	// url.<bare>.insteadOf rewrites to the bare repository.
	Ana, Bob, Carol string
}

// CarolURL is the scp-like URL Carol's origin names.
const CarolURL = "git@example.invalid:o/r.git"

// Clones makes the bare repository under dir, one commit of CartPath
// (CartLines) on main, and the three clones beside it.
func Clones(tb testing.TB, dir string) ClonesOf {
	tb.Helper()
	c := ClonesOf{Bare: filepath.Join(dir, "shop.git"), Ana: filepath.Join(dir, "ana", "shop"), Bob: filepath.Join(dir, "bob", "shop"), Carol: filepath.Join(dir, "carol", "shop")}
	Git(tb, "", "init", "-q", "--bare", "-b", "main", c.Bare)
	seed := filepath.Join(dir, "seed")
	Init(tb, seed)
	WriteFile(tb, filepath.Join(seed, filepath.FromSlash(CartPath)), CartLines(nil))
	WriteFile(tb, filepath.Join(seed, "README"), "shop\n")
	CommitAll(tb, seed, "init")
	Git(tb, seed, "push", "-q", c.Bare, "main")
	if err := os.RemoveAll(seed); err != nil {
		tb.Fatal(err)
	}
	Git(tb, "", "clone", "-q", "file://"+c.Bare, c.Ana)
	Git(tb, "", "clone", "-q", c.Bare, c.Bob)
	rewrite := "url." + c.Bare + ".insteadOf"
	Git(tb, "", "-c", rewrite+"="+CarolURL, "clone", "-q", CarolURL, c.Carol)
	Git(tb, c.Carol, "config", rewrite, CarolURL)
	return c
}

// Fingerprint hashes everything under root that a reader could change:
// every file's path, mode, size, modification time and content, and every
// directory's listing, the .git directory and its object store included.
// Two equal fingerprints: not a byte written, not an index rewritten,
// not a loose object added.
func Fingerprint(tb testing.TB, root string) string {
	tb.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00%v\x00%d\x00%d\x00", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("fingerprint %s: %v", root, err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// GitDirPrint is every byte of a repository's git directory a Hall must
// never change: each file's path, size and content (refs, packed-refs,
// objects, config, FETCH_HEAD's absence), each directory's listing, and
// the index's modification time. An object's modification time is left
// out: git freshens it when a command run with the repository's objects
// as alternates (a snapshot, a merge prediction, as the scanner's) would
// write that object again, and no byte changes (docs/worktrees.md#pushed-work). Two equal prints: not a
// byte of the repository changed, its index not rewritten.
func GitDirPrint(tb testing.TB, gitDir string) string {
	tb.Helper()
	var b strings.Builder
	err := filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(gitDir, p)
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/\n", rel)
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s %d %s\n", rel, len(data), hex.EncodeToString(sum[:8]))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(gitDir, "index")); err == nil {
		fmt.Fprintf(&b, "index mtime %d\n", info.ModTime().UnixNano())
	}
	return b.String()
}
