package main

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/contract"
	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/presence"
)

// sidecar is a hand-written record in the shape another writer might use:
// compact, foreign fields, its own field order.
func sidecar(agent, brain, worktree string, beatMs int64, mutation string) string {
	id := presence.ID(agent, brain)
	return fmt.Sprintf(`{"last_beat_ms":%d,"agent_id":%s,"presence_id":%q,"brain":%s,"worktree":%s,"mutation":%s,"runtime":"m1nd 0.9","query_count":3}`,
		beatMs, jsonString(agent), id, jsonString(brain), jsonString(worktree), mutation)
}

// sidecarName is the file a record of agent on brain is filed under: its
// own id (a record under any other name is skipped).
func sidecarName(agent, brain string) string { return presence.ID(agent, brain) + ".json" }

// TestServeContract starts the real Hall over a registry of hand-written
// sidecar files and reads the contract over HTTP.
func TestServeContract(t *testing.T) {
	root := t.TempDir()
	shop := filepath.Join(t.TempDir(), "shop")
	if err := os.Mkdir(shop, 0o755); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(shop, "wt2")
	now := nowMs()
	writeSidecar(t, root, sidecarName("claude-7", shop), sidecar("claude-7", shop, wt, now-1000, `{"declared_intent":"mutate"}`))
	writeSidecar(t, root, sidecarName("codex-2", shop), sidecar("codex-2", shop, wt, now-2000, fmt.Sprintf(`{"observed_at_ms":%d}`, now-2000)))
	writeSidecar(t, root, sidecarName("reader-1", "/srv/docs"), sidecar("reader-1", "/srv/docs", "/srv/docs", now-500, `null`))
	writeSidecar(t, root, sidecarName("old-1", "/srv/old"), sidecar("old-1", "/srv/old", "/srv/old", now-10*60*1000, `null`))
	writeSidecar(t, root, "broken.json", `{"presence_id": "prs_`)
	writeSidecar(t, root, "partial.json", `{"presence_id":"prs_000000000000","agent_id":"x"}`)
	writeSidecar(t, root, "notes.txt", `not a record`)

	m := MustOpenHall(t, Config{RegistryRoot: root, Brains: []string{"/srv/configured"}})

	if _, err := os.Stat(filepath.Join(root, "presences", sidecarName("old-1", "/srv/old"))); !os.IsNotExist(err) {
		t.Errorf("boot reclaim: the stale record still there (stat err %v)", err)
	}
	if _, err := os.Stat(filepath.Join(root, "presences", "broken.json")); err != nil {
		t.Errorf("boot reclaim removed a file it could not read: %v", err)
	}

	var all contract.PresencesResponse
	if got := getJSON(t, m.URL()+"/api/presences", &all); got != http.StatusOK {
		t.Fatalf("owner-wide status: got %d, want 200", got)
	}
	var agents []string
	for _, p := range all.Presences {
		agents = append(agents, p.AgentID)
	}
	if got, want := fmt.Sprint(agents), "[reader-1 claude-7 codex-2]"; got != want {
		t.Errorf("owner-wide roster (newest beat first): got %s, want %s", got, want)
	}
	if all.ServedBrain != nil || all.ServedAtMs == 0 || all.Error != "" {
		t.Errorf("owner-wide: got served_brain %+v served_at_ms %d error %q", all.ServedBrain, all.ServedAtMs, all.Error)
	}
	if len(all.Collisions) != 1 || all.Collisions[0].Place != wt || all.Collisions[0].Clauses[0] != "same_worktree" {
		t.Fatalf("collisions: got %+v, want one same_worktree collision at %s", all.Collisions, wt)
	}

	// A brain named through a symlink and a trailing slash is served under
	// its canonical path.
	link := filepath.Join(t.TempDir(), "shop-link")
	if err := os.Symlink(shop, link); err != nil {
		t.Fatal(err)
	}
	var one contract.PresencesResponse
	if got := getJSON(t, m.URL()+"/api/presences?brain="+url.QueryEscape(link+"/"), &one); got != http.StatusOK {
		t.Fatalf("known brain status: got %d, want 200", got)
	}
	if one.ServedBrain.Root() != shop || one.ServedBrain.DisplayName != nil || len(one.Presences) != 2 || len(one.Collisions) != 1 {
		t.Errorf("brain roster: got served_brain %+v, %d presences, %d collisions; want {%q null}, 2, 1", one.ServedBrain, len(one.Presences), len(one.Collisions), shop)
	}

	cases := []struct {
		name, brain string
		status      int
		code        string
		presences   int
	}{
		{"configured brain, nobody there", "/srv/configured", 200, "", 0},
		{"brain of a stale record reclaimed at boot", "/srv/old", 404, "unknown_brain", 0},
		{"brain without collisions", "/srv/docs", 200, "", 1},
		{"unknown brain", "/srv/nowhere", 404, "unknown_brain", 0},
		{"relative brain", "srv/docs", 400, "invalid_brain", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body struct {
				contract.PresencesResponse
				Detail string `json:"detail"`
			}
			got := getJSON(t, m.URL()+"/api/presences?brain="+url.QueryEscape(tc.brain), &body)
			if got != tc.status {
				t.Fatalf("status: got %d, want %d", got, tc.status)
			}
			if body.Error != tc.code {
				t.Errorf("error: got %q, want %q", body.Error, tc.code)
			}
			if tc.code != "" && body.Detail == "" {
				t.Errorf("error without detail")
			}
			if tc.status == 200 && (len(body.Presences) != tc.presences || body.Collisions == nil) {
				t.Errorf("got %d presences (collisions %v), want %d and a collisions list", len(body.Presences), body.Collisions, tc.presences)
			}
		})
	}

	var h contract.Health
	if got := getJSON(t, m.URL()+"/api/health", &h); got != 200 {
		t.Fatalf("health status: got %d", got)
	}
	if h.Status != "ok" || h.Presences == nil || h.Presences.Live != 3 || h.Presences.CollisionCount != 1 || h.Presences.Skipped != 2 {
		t.Errorf("health: got %+v presences %+v, want ok, 3 live, 1 collision, 2 skipped", h, h.Presences)
	}
}

// TestServeUnreadableRegistry drops the roster whole, and health still
// answers, when the presences folder goes away; and recovers when it is
// back.
func TestServeUnreadableRegistry(t *testing.T) {
	root := t.TempDir()
	writeSidecar(t, root, sidecarName("claude-7", "/srv/shop"), sidecar("claude-7", "/srv/shop", "/srv/shop", nowMs(), `null`))
	m := MustOpenHall(t, Config{RegistryRoot: root})
	dir := filepath.Join(root, "presences")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	// A file where the folder was: unreadable even to root.
	if err := os.WriteFile(dir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var resp contract.PresencesResponse
	eventually.True(t, wait, "the roster to be dropped", func() bool {
		getJSON(t, m.URL()+"/api/presences", &resp)
		return resp.Error != ""
	})
	if resp.Error != "registry_unreadable" || len(resp.Presences) != 0 || resp.Collisions == nil || len(resp.Collisions) != 0 {
		t.Errorf("got %+v, want registry_unreadable with empty lists", resp)
	}
	var h contract.Health
	if got := getJSON(t, m.URL()+"/api/health", &h); got != 200 || h.Presences != nil || h.PresencesError == "" || h.Error != "registry_unreadable" || h.Detail == "" {
		t.Errorf("health: got %d %+v, want 200 without a presences block and with presences_error", got, h)
	}
	for _, path := range []string{"/api/cockpit", "/api/north?presence_id=prs_000000000000"} {
		resp, err := http.Get(m.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: got %d, want 200 (fail-open)", path, resp.StatusCode)
		}
	}

	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	writeSidecar(t, root, sidecarName("claude-7", "/srv/shop"), sidecar("claude-7", "/srv/shop", "/srv/shop", nowMs(), `null`))
	eventually.True(t, wait, "the roster to come back", func() bool {
		resp = contract.PresencesResponse{}
		getJSON(t, m.URL()+"/api/presences", &resp)
		return resp.Error == "" && len(resp.Presences) == 1
	})
}

func TestServeConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"loopback", Config{Addr: "127.0.0.1:7433", TTL: 1}, true},
		{"localhost", Config{Addr: "localhost:7433", TTL: 1}, true},
		{"ipv6 loopback", Config{Addr: "[::1]:7433", TTL: 1}, true},
		{"remote without token", Config{Addr: "0.0.0.0:7433", TTL: 1}, false},
		{"remote with token", Config{Addr: "0.0.0.0:7433", TTL: 1, Token: "s3cret"}, true},
		{"remote explicitly allowed", Config{Addr: ":7433", TTL: 1, AllowInsecureRemote: true}, true},
		{"empty host is every interface", Config{Addr: ":7433", TTL: 1}, false},
		{"bad addr", Config{Addr: "nope", TTL: 1}, false},
		{"zero ttl", Config{Addr: "127.0.0.1:1", TTL: 0}, false},
		{"ttl of a day", Config{Addr: "127.0.0.1:1", TTL: 24 * time.Hour}, true},
		{"ttl beyond a day", Config{Addr: "127.0.0.1:1", TTL: 24*time.Hour + time.Millisecond}, false},
		{"a host name", Config{Addr: "127.0.0.1:1", TTL: 1, HostName: "bob-laptop"}, true},
		{"a host name with a newline", Config{Addr: "127.0.0.1:1", TTL: 1, HostName: "bob\nlaptop"}, false},
		{"a host name too long", Config{Addr: "127.0.0.1:1", TTL: 1, HostName: strings.Repeat("h", 129)}, false},
		{"share content", Config{Addr: "127.0.0.1:1", TTL: 1, ShareChanges: "content"}, true},
		{"share paths", Config{Addr: "127.0.0.1:1", TTL: 1, ShareChanges: "paths"}, true},
		{"share something else", Config{Addr: "127.0.0.1:1", TTL: 1, ShareChanges: "everything"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if got := err == nil; got != tc.ok {
				t.Errorf("Validate: got err %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestServeFlagsFromEnv(t *testing.T) {
	t.Setenv("HALL_ADDR", "127.0.0.1:9999")
	t.Setenv("HALL_BRAIN", "/srv/a:/srv/b")
	t.Setenv("HALL_TTL", "30s")
	t.Setenv("M1ND_REGISTRY_DIR", "/var/m1nd")
	cfg, err := parseServeConfig([]string{"--ttl", "45s"}, os.Stdout, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != "127.0.0.1:9999" || fmt.Sprint(cfg.Brains) != "[/srv/a /srv/b]" || cfg.TTL.String() != "45s" || cfg.RegistryRoot != "/var/m1nd" {
		t.Errorf("got %+v: want addr and brains from HALL_*, ttl from the flag, registry from M1ND_REGISTRY_DIR", cfg)
	}
	t.Setenv("HALL_REGISTRY_ROOT", "/var/hall")
	cfg, _ = parseServeConfig(nil, os.Stdout, os.Stderr)
	if cfg.RegistryRoot != "/var/hall" {
		t.Errorf("registry root: got %q, want HALL_REGISTRY_ROOT over M1ND_REGISTRY_DIR", cfg.RegistryRoot)
	}
}

// TestServeListenFailureClosesThroughClose: a Hall whose address is taken
// fails to start, and closes what it opened the way Close does (the
// application's background work, the live loop, the snapshot store, the
// store, the registry's lock): no goroutine of it is left, and the next
// Hall on the same registry starts.
func TestServeListenFailureClosesThroughClose(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	root := t.TempDir()
	base := runtime.NumGoroutine()
	m := NewMain(Config{Addr: taken.Addr().String(), RegistryRoot: root, TTL: time.Minute, Snapshots: true}, quietLog)
	if err := m.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "listen") {
		t.Fatalf("Run on a taken address: %v, want the listen error", err)
	}
	eventually.True(t, wait, "the failed Hall's goroutines gone", func() bool { return runtime.NumGoroutine() <= base+2 })
	MustOpenHall(t, Config{RegistryRoot: root, TTL: time.Minute})
}
