package presence

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestPathCacheFollowsSymlinksWithinTTL: a cached answer stands for
// pathCacheTTL, a changed symlink is followed after it, errors are never
// cached, and the cache never grows past pathCacheMax.
func TestPathCacheFollowsSymlinksWithinTTL(t *testing.T) {
	dir := t.TempDir()
	x, y := filepath.Join(dir, "x"), filepath.Join(dir, "y")
	for _, d := range []string{x, y} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(x, link); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_000, 0)
	c := &pathCache{now: func() time.Time { return now }}
	realX, _ := filepath.EvalSymlinks(x)
	realY, _ := filepath.EvalSymlinks(y)

	if got, _ := c.canonical(link); got != realX {
		t.Fatalf("first: got %q, want %q", got, realX)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(y, link); err != nil {
		t.Fatal(err)
	}
	now = now.Add(pathCacheTTL - time.Millisecond)
	if got, _ := c.canonical(link); got != realX {
		t.Errorf("within the ttl: got %q, want the cached %q", got, realX)
	}
	now = now.Add(time.Millisecond)
	if got, _ := c.canonical(link); got != realY {
		t.Errorf("after the ttl: got %q, want the new target %q", got, realY)
	}
	if _, err := c.canonical("relative/path"); ErrorCode(err) != EINVALID {
		t.Errorf("relative path: got %v, want EINVALID", err)
	}
	if _, ok := c.m["relative/path"]; ok {
		t.Errorf("an error was cached")
	}
	for i := 0; i < pathCacheMax+10; i++ {
		if _, err := c.canonical(fmt.Sprintf("/nowhere/%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(c.m) > pathCacheMax {
		t.Errorf("cache holds %d entries, limit %d", len(c.m), pathCacheMax)
	}
}
