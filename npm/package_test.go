// Package npm_test builds the npm packages as a release does
// (scripts/release, for this machine's platform), packs them, installs
// the packs into an empty prefix, and runs what they put on PATH with no
// Go there: what a person who installs agents with npm gets.
package npm_test

import (
	"bufio"
	"bytes"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hall-dev/hall/internal/eventually"
	"github.com/hall-dev/hall/internal/npmtest"
)

// version is the release version the test builds.
const version = npmtest.Version

func TestInstalledPackageRunsWithoutGo(t *testing.T) {
	dir := t.TempDir()
	in := npmtest.New(t, dir)
	dist, prefix := in.Dist, in.Prefix
	home := filepath.Join(dir, "home")
	env := []string{"PATH=" + in.NoGoPath(t), "HOME=" + home}
	run := func(name string, args ...string) *exec.Cmd {
		// What a shell finds first on that PATH.
		cmd := exec.Command(filepath.Join(prefix, "bin", name), args...)
		cmd.Env = env
		cmd.Dir = dir
		return cmd
	}

	out, err := run("hall", "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "hall v"+version+"\n") {
		t.Errorf("hall --version: %v, %q; want hall v%s", err, out, version)
	}

	t.Run("homebrew formula", func(t *testing.T) {
		formula := filepath.Join(dist, "hall.rb")
		body, err := os.ReadFile(formula)
		if err != nil {
			t.Fatal(err)
		}
		archive := "hall_" + version + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
		sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var sum string
		for _, line := range strings.Split(string(sums), "\n") {
			if s, name, ok := strings.Cut(line, "  "); ok && name == archive {
				sum = s
			}
		}
		if sum == "" || !strings.Contains(string(body), "/v"+version+"/"+archive+"\"\n      sha256 \""+sum+"\"") {
			t.Errorf("hall.rb does not name %s with its checksum %q:\n%s", archive, sum, body)
		}
		ruby, err := exec.LookPath("ruby")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("ruby: %v (.ci/run installs it)", err)
			}
			t.Skip("ruby is not installed: the formula's syntax is not checked (apt-get install -y ruby)")
		}
		if out, err := exec.Command(ruby, "-c", formula).CombinedOutput(); err != nil {
			t.Errorf("ruby -c hall.rb: %v\n%s", err, out)
		}
	})

	t.Run("demo answers", func(t *testing.T) {
		demo := run("hall", "--demo", "--addr", "127.0.0.1:0")
		stdout, err := demo.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := demo.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			// The node entry passes the signal on: the Hall stops, and so
			// does node with it.
			_ = demo.Process.Signal(syscall.SIGTERM)
			_ = demo.Wait()
		}()
		line, err := bufio.NewReader(stdout).ReadString('\n')
		url := regexp.MustCompile(`http://\S+`).FindString(line)
		if err != nil || url == "" {
			t.Fatalf("hall --demo printed %q (%v), want its address", line, err)
		}
		resp, err := http.Get(url + "/api/presences")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET /api/presences: %d", resp.StatusCode)
		}
	})

	t.Run("hall-hook starts a Hall", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		root := filepath.Join(dir, "registry")
		hook := run("hall-hook", "claude", "--hall", "http://"+addr)
		hook.Env = append(hook.Env, "M1ND_REGISTRY_DIR="+root, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
		hook.Stdin = strings.NewReader(`{"session_id":"npm-1","cwd":"` + dir + `","hook_event_name":"SessionStart"}`)
		var errOut bytes.Buffer
		hook.Stderr = &errOut
		if err := hook.Run(); err != nil {
			t.Fatalf("hall-hook: %v\n%s", err, errOut.String())
		}
		answers := func() bool {
			resp, err := http.Get("http://" + addr + "/api/health")
			if err == nil {
				resp.Body.Close()
			}
			return err == nil && resp.StatusCode == 200
		}
		eventually.True(t, 10*time.Second, "the Hall the hook started answers", answers)
		// Stopped by the pid its registry's lock names.
		note, _ := os.ReadFile(filepath.Join(root, "hall.lock"))
		m := regexp.MustCompile(`^pid (\d+),`).FindSubmatch(note)
		if m == nil {
			t.Fatalf("hall.lock says %q, want the Hall's pid", note)
		}
		pid, _ := strconv.Atoi(string(m[1]))
		p, err := os.FindProcess(pid)
		if err == nil {
			err = p.Signal(syscall.SIGTERM)
		}
		if err != nil {
			t.Fatal(err)
		}
		eventually.True(t, 10*time.Second, "the started Hall stops", func() bool { return !answers() })
	})
}
