//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/dirstore/dirstoretest"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
	"github.com/hall-dev/hall/internal/stream/streamtest"
)

// boundedClient answers within faultWait or fails the test: a Hall stuck
// on a read must fail it, not hang it.
var boundedClient = &http.Client{Timeout: faultWait}

// beatBounded is beatHall with a deadline.
func beatBounded(tb testing.TB, base string, b contract.BeatRequest) contract.BeatResponse {
	tb.Helper()
	body, _ := json.Marshal(b)
	resp, err := boundedClient.Post(base+"/api/presences/beat", "application/json", bytes.NewReader(body))
	if err != nil {
		tb.Fatalf("POST beat %s: %v", b.AgentID, err)
	}
	defer resp.Body.Close()
	var out contract.BeatResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("POST beat %s: got %d %+v (%v), want 200", b.AgentID, resp.StatusCode, out, err)
	}
	return out
}

// nonRegular makes, at path, an entry that is not a regular file; kind
// names it.
func nonRegular(tb testing.TB, path, kind string) {
	tb.Helper()
	elsewhere := tb.TempDir()
	var err error
	switch kind {
	case "fifo":
		err = syscall.Mkfifo(path, 0o644)
	case "symlink to a fifo":
		fifo := filepath.Join(elsewhere, "fifo")
		if err = syscall.Mkfifo(fifo, 0o644); err == nil {
			err = os.Symlink(fifo, path)
		}
	case "symlink to a character device":
		err = os.Symlink("/dev/zero", path)
	case "symlink to /proc/self/fd/0":
		err = os.Symlink("/proc/self/fd/0", path)
	case "symlink to a record":
		// Whole and valid, named for its own id: not followed all the same.
		r := liveRecord("linked", "/srv/shop", "/srv/shop/wt-9", true)
		r.PresenceID = presence.ID(r.AgentID, r.Brain)
		data, _ := presence.EncodeRecord(r)
		target := filepath.Join(elsewhere, r.PresenceID+".json")
		if err = os.WriteFile(target, data, 0o644); err == nil {
			err = os.Symlink(target, path)
		}
	case "character device":
		// /dev/zero's numbers; making a device needs CAP_MKNOD, which a
		// container may withhold: then a FIFO stands in its place.
		if err = syscall.Mknod(path, syscall.S_IFCHR|0o644, 1<<8|5); errors.Is(err, syscall.EPERM) {
			tb.Logf("mknod: %v; a FIFO in its place", err)
			err = syscall.Mkfifo(path, 0o644)
		}
	default:
		tb.Fatalf("unknown kind %q", kind)
	}
	if err != nil {
		tb.Fatalf("make %s at %s: %v", kind, path, err)
	}
}

// nonRegularKinds are the entries no reader may open as a record.
var nonRegularKinds = []string{"fifo", "symlink to a fifo", "symlink to a character device", "symlink to /proc/self/fd/0", "symlink to a record", "character device"}

// TestFaultNonRegularFilesInRegistry: FIFOs, devices and symlinks named
// *.json in the presences folder, at boot, after boot and at a beating
// agent's own file name, never hang the Hall: it boots and listens, every
// reader passes them by (symlinks are not followed) and counts them
// skipped, outside writes still reach the contract and the stream, the
// agent's beats are answered and stored, and SIGTERM exits at once. The
// real program in a child process, so a hang is a failed test, not a
// stuck one.
func TestFaultNonRegularFilesInRegistry(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "presences")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dirstoretest.Upsert(t, root, liveRecord("good", "/srv/shop", "/srv/shop/wt-1", true))
	for i, kind := range nonRegularKinds {
		nonRegular(t, filepath.Join(dir, "boot-"+string(rune('a'+i))+".json"), kind)
	}
	// One at an id's own name: the record a reader would look for.
	nonRegular(t, filepath.Join(dir, presence.ID("shadowed", "/srv/shop")+".json"), "fifo")
	skippedAtBoot := len(nonRegularKinds) + 1

	hall, base := startHallProcess(t, root, "--ttl", "10m")
	w := streamtest.Follow(t, base+"/api/presences/stream", "")
	w.UntilView(t, "good on the stream", func(r contract.PresencesResponse) bool { return len(r.Presences) == 1 })
	if got, _ := readContract(t, base); len(got.Presences) != 1 || got.Presences[0].AgentID != "good" || got.Error != "" {
		t.Errorf("contract after boot: got %+v, want good alone", got)
	}
	if h := readHealth(t, base); h.Presences == nil || h.Presences.Skipped != skippedAtBoot {
		t.Errorf("health after boot: got %+v, want %d skipped", h.Presences, skippedAtBoot)
	}

	// After boot: each kind again, under the watch.
	for i, kind := range nonRegularKinds {
		nonRegular(t, filepath.Join(dir, "after-"+string(rune('a'+i))+".json"), kind)
	}
	dirstoretest.Upsert(t, root, liveRecord("outside", "/srv/shop", "/srv/shop/wt-2", true))
	w.UntilView(t, "the outside write on the stream", func(r contract.PresencesResponse) bool {
		agents, _ := rosterIDs(r)
		return slices.Equal(agents, []string{"good", "outside"})
	})
	eventually.True(t, faultWait, "every non-regular entry counted skipped", func() bool {
		h := readHealth(t, base)
		return h.Presences != nil && h.Presences.Skipped == skippedAtBoot+len(nonRegularKinds)
	})

	// At a beating agent's own file name, before its first beat: the beat
	// is answered and stored (its record replaces the FIFO).
	for _, agent := range []string{"shadowed", "fresh"} {
		if agent == "fresh" {
			nonRegular(t, filepath.Join(dir, presence.ID(agent, "/srv/shop")+".json"), "fifo")
		}
		if res := beatBounded(t, base, contract.BeatRequest{AgentID: agent, Brain: "/srv/shop", Worktree: "/srv/shop/wt-3"}); !res.Stored {
			t.Errorf("%s's beat over a FIFO at its file name: got %+v, want stored", agent, res)
		}
	}
	w.UntilView(t, "both agents on the stream", func(r contract.PresencesResponse) bool {
		agents, _ := rosterIDs(r)
		return slices.Equal(agents, []string{"fresh", "good", "outside", "shadowed"})
	})

	took := hall.terminate(t)
	if hall.err != nil {
		t.Errorf("exit after SIGTERM: got %v, want status 0; stderr:\n%s", hall.err, hall.stderr.String())
	}
	t.Logf("exit %s after SIGTERM", took.Round(time.Millisecond))
}

// keptClient reads from a Hall over connections opened before a fault: one
// kept alive, so it is answered while the Hall can accept no new one.
type keptClient struct{ c *http.Client }

func newKeptClient() *keptClient {
	return &keptClient{c: &http.Client{Timeout: faultWait, Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1}}}
}

func (k *keptClient) get(tb testing.TB, url string, out any) {
	tb.Helper()
	resp, err := k.c.Get(url)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body) // read to the end: the connection is kept
	if err != nil || resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d %s %v", url, resp.StatusCode, body, err)
	}
	if err := json.Unmarshal(body, out); err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
}

// TestFaultOutOfDescriptors: the Hall runs out of file descriptors (its
// soft RLIMIT_NOFILE lowered from outside to what it has open, as ulimit -n
// 256 and a few hundred streams leave it) while the folder changes and its
// rescans run. The roster is not taken for unreadable: the contract keeps
// the last good roster with no error, the stream tells no one the roster
// is gone, health counts the refused reads (busy_reads); once descriptors
// are back the change arrives by itself.
func TestFaultOutOfDescriptors(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "presences"), 0o755); err != nil {
		t.Fatal(err)
	}
	dirstoretest.Upsert(t, root, liveRecord("steady", "/srv/shop", "/srv/shop/wt-1", true))
	hall, base := startHallProcess(t, root, "--ttl", "10m", "--rescan", "100ms")
	w := streamtest.Follow(t, base+"/api/presences/stream", "")
	w.UntilView(t, "steady on the stream", func(r contract.PresencesResponse) bool { return len(r.Presences) == 1 })
	kept := newKeptClient()
	var h contract.Health
	kept.get(t, base+"/api/health", &h)
	// Staged outside the folder, renamed in once descriptors are gone (a
	// rename needs none).
	staged := t.TempDir()
	if err := os.Mkdir(filepath.Join(staged, "presences"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := liveRecord("outside", "/srv/shop", "/srv/shop/wt-2", true)
	dirstoretest.Upsert(t, staged, outside)
	name := presence.ID(outside.AgentID, outside.Brain) + ".json"

	pid := hall.cmd.Process.Pid
	lim, err := prlimit(pid, syscall.RLIMIT_NOFILE, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A new descriptor takes the lowest free number: a limit at that
	// number leaves none to open, while the open ones (the listener, the
	// stream, the kept connection) go on working. The Hall opens files
	// for a moment too (its rescan every 100 ms reads each record): the
	// lowest free number seen over many looks is the steady one. (One
	// look taken while a record was open set the limit one above it, a
	// descriptor stayed free, and no read was refused: a flake under
	// load.)
	lowestFree := -1
	for range 50 {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			t.Fatal(err)
		}
		open := map[string]bool{}
		for _, fd := range fds {
			open[fd.Name()] = true
		}
		free := 0
		for open[strconv.Itoa(free)] {
			free++
		}
		if lowestFree < 0 || free < lowestFree {
			lowestFree = free
		}
		time.Sleep(7 * time.Millisecond)
	}
	if _, err := prlimit(pid, syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: uint64(lowestFree), Max: lim.Max}); err != nil {
		t.Fatal(err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			if _, err := prlimit(pid, syscall.RLIMIT_NOFILE, &lim); err != nil {
				t.Error(err)
			}
		}
	}
	defer restore()
	if err := os.Rename(filepath.Join(staged, "presences", name), filepath.Join(root, "presences", name)); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, faultWait, "health to count refused reads", func() bool {
		kept.get(t, base+"/api/health", &h)
		return h.Store.BusyReads >= 3 // the watch's reread, then rescans
	})
	var during contract.PresencesResponse
	kept.get(t, base+"/api/presences", &during)
	if agents, _ := rosterIDs(during); !slices.Equal(agents, []string{"steady"}) || during.Error != "" {
		t.Errorf("contract out of descriptors: got %v, error %q; want the last good roster, steady, and no error", agents, during.Error)
	}
	if h.Presences == nil || h.PresencesError != "" {
		t.Errorf("health out of descriptors: got presences %v, error %q; want the roster, no error", h.Presences, h.PresencesError)
	}

	restore()
	w.UntilView(t, "the outside write once descriptors are back", func(r contract.PresencesResponse) bool {
		agents, _ := rosterIDs(r)
		return slices.Equal(agents, []string{"outside", "steady"})
	})
	// Nothing on the stream said the roster was gone, nor that steady left.
	for _, ch := range w.Drain() {
		if ch.Error != "" || len(ch.Leaves) > 0 {
			t.Errorf("stream out of descriptors: got %+v, want no drop and no leave", ch)
		}
	}
}

// TestFaultTwoHallsOneFolder: a second Hall started on a folder another
// Hall serves warns, naming the first (its pid and address, from the
// folder's lock), and both go on working: a beat taken by one reaches the
// other's roster. Once the first is gone, a Hall started on the folder
// takes the lock without a word.
func TestFaultTwoHallsOneFolder(t *testing.T) {
	root := t.TempDir()
	first, firstURL := startHallProcess(t, root, "--ttl", "10m")
	second, secondURL := startHallProcess(t, root, "--ttl", "10m")
	eventually.True(t, faultWait, "the second Hall's warning", func() bool {
		return strings.Contains(second.stderr.String(), "another Hall serves this registry folder")
	})
	warning := second.stderr.String()
	if want := fmt.Sprintf("pid %d, %s", first.cmd.Process.Pid, firstURL); !strings.Contains(warning, want) {
		t.Errorf("the second Hall's warning: got %q, want it to name the first, %q", warning, want)
	}
	if s := first.stderr.String(); strings.Contains(s, "another Hall") {
		t.Errorf("the first Hall warned: %q", s)
	}
	if res := beatBounded(t, firstURL, contract.BeatRequest{AgentID: "a", Brain: "/srv/shop"}); !res.Stored {
		t.Fatalf("beat into the first: got %+v, want stored", res)
	}
	eventually.True(t, faultWait, "the first Hall's beat on the second's roster", func() bool {
		got, _ := readContract(t, secondURL)
		return len(got.Presences) == 1 && got.Presences[0].AgentID == "a"
	})

	for _, h := range []*helperProc{first, second} {
		h.terminate(t)
	}
	// At info, "hall listening" follows the moment a warning would have
	// been written, on the same stream: once it is there, so would be the
	// warning.
	third, _ := startHallProcess(t, root, "--ttl", "10m", "--log-level", "info")
	eventually.True(t, faultWait, "the third Hall's listening line", func() bool { return strings.Contains(third.stderr.String(), "hall listening") })
	if s := third.stderr.String(); strings.Contains(s, "another Hall") {
		t.Errorf("a Hall started once the others were gone warned: %q", s)
	}
}
