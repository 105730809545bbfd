package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/natsstore/natstest"
)

// Two Halls on one NATS store (one host name, each its own registry and
// clone of one remote) watch the remote once between them: one runs
// git ls-remote, the other reads its answer, and both list the branch
// pushed there as a side, with when it was first seen.
func TestPushedWatchSharedOnNATS(t *testing.T) {
	global := filepath.Join(gittest.TempDir(t), "gitconfig")
	if err := os.WriteFile(global, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	srv := natstest.RunServer(t, 0)
	ana, bob := teamClones(t)
	remote := gittest.Git(t, ana, "config", "--get", "remote.origin.url")
	gittest.Git(t, remote, "config", "uploadpack.allowFilter", "true")
	// A cloud agent pushes a change of line 5; both agents edit line 5.
	gittest.Git(t, ana, "checkout", "-q", "-b", "cloud-fix")
	gittest.WriteFile(t, filepath.Join(ana, "src", "checkout", "cart.go"), cart(map[int]string{5: "// the cloud's line 5"}))
	gittest.CommitAll(t, ana, "cloud fix")
	gittest.Git(t, ana, "push", "-q", "origin", "cloud-fix")
	gittest.Git(t, ana, "checkout", "-q", "main")
	gittest.WriteFile(t, filepath.Join(ana, "src", "checkout", "cart.go"), cart(map[int]string{5: "// ana's line 5"}))
	gittest.WriteFile(t, filepath.Join(bob, "src", "checkout", "cart.go"), cart(map[int]string{5: "// bob's line 5"}))

	open := func() *Main {
		return MustOpenHall(t, Config{Store: srv.URL(), TTL: time.Minute, GitInterval: 10 * time.Millisecond, HostName: "h",
			RemoteInterval: time.Hour, RemoteActiveDays: 14, RemoteMaxBranches: 200})
	}
	halls := []*Main{open(), open()}
	beats := func() {
		beatHall(t, halls[0].URL(), editBeat("claude-ana", ana))
		beatHall(t, halls[1].URL(), editBeat("claude-bob", bob))
	}
	for i, m := range halls {
		eventually.True(t, natsWait, "the pushed branch a side at Hall "+strconv.Itoa(i), func() bool {
			beats()
			for _, o := range contractNow(t, m.URL()+"/api/presences").Overlaps {
				if o.Across == contract.AcrossPushed && o.B.Pushed.Branch == "cloud-fix" && o.B.Pushed.SeenMs > 0 {
					return true
				}
			}
			return false
		})
	}
	looksRE := regexp.MustCompile(`\nhall_remotewatch_looks_total (\d+)\n`)
	sharedRE := regexp.MustCompile(`\nhall_remotewatch_shared_total (\d+)\n`)
	looks, shared, sharedBy := 0, 0, 0
	for _, m := range halls {
		body := getBody(t, m.URL()+"/metrics", 1<<20)
		for re, n := range map[*regexp.Regexp]*int{looksRE: &looks, sharedRE: &shared} {
			if g := re.FindStringSubmatch(body); g != nil {
				v, _ := strconv.Atoi(g[1])
				*n += v
			}
		}
		var health contract.Health
		if err := json.Unmarshal([]byte(getBody(t, m.URL()+"/api/health", 1<<20)), &health); err != nil {
			t.Fatal(err)
		}
		for _, r := range health.Remotes {
			if r.SharedBy == "h" {
				sharedBy++
			}
		}
	}
	if looks != 1 || shared < 1 || sharedBy != 1 {
		t.Errorf("two Halls on one store: %d ls-remote, %d looks shared, %d remotes shared_by h; want 1, 1 or more, 1", looks, shared, sharedBy)
	}

	// The Hall that looks stops: its Close releases the lease (no holder
	// in the shared entry), for the other to take at its next look
	// instead of three renewals later.
	holder := -1
	for i, m := range halls {
		var health contract.Health
		if err := json.Unmarshal([]byte(getBody(t, m.URL()+"/api/health", 1<<20)), &health); err != nil {
			t.Fatal(err)
		}
		if len(health.Remotes) == 1 && health.Remotes[0].SharedBy == "" {
			holder = i
		}
	}
	if holder < 0 {
		t.Fatal("neither Hall looks itself")
	}
	if err := halls[holder].Close(); err != nil {
		t.Fatal(err)
	}
	leases := 0
	for k, v := range boardKeys(t, srv.URL()) {
		if !strings.HasPrefix(k, "watch.") {
			continue
		}
		leases++
		var l struct{ Holder, Host string }
		if err := json.Unmarshal(v, &l); err != nil || l.Holder != "" || l.Host != "h" {
			t.Errorf("the lease after its holder stopped: %s (%v); want it released: no holder, host h", v, err)
		}
	}
	if leases != 1 {
		t.Errorf("%d leases on the board, want 1", leases)
	}
}
