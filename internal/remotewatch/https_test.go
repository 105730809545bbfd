package remotewatch_test

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hall-dev/hall/internal/gittest"
	"github.com/hall-dev/hall/internal/remotewatch"
)

// serveHTTPS serves the bare repositories under root over git's smart
// HTTP (git http-backend behind net/http/cgi) on TLS, asking for basic
// auth as ana:secret, and makes git trust the server's certificate
// (GIT_SSL_CAINFO). It answers the URL of root.
func serveHTTPS(t *testing.T, root string) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	backend := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "ana" || pass != "secret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ca := filepath.Join(gittest.TempDir(t), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_SSL_CAINFO", ca)
	return srv.URL
}

// credentialHelper puts git-credential-halltest on PATH: it answers
// ana and the password in the file it returns.
func credentialHelper(t *testing.T) string {
	t.Helper()
	bin := gittest.TempDir(t)
	pw := filepath.Join(bin, "password")
	script := "#!/bin/sh\ntest \"$1\" = get || exit 0\necho username=ana\necho password=$(cat " + pw + ")\n"
	if err := os.WriteFile(filepath.Join(bin, "git-credential-halltest"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return pw
}

// Over HTTPS with basic auth, the watch fetches with the credentials the
// clone's own credential helper gives (a plain-named one), never
// prompts, and with wrong credentials says so.
func TestHTTPSRemoteWithCredentialHelper(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	w := newWorld(t, nil)
	url := serveHTTPS(t, filepath.Dir(w.remote)) + "/" + filepath.Base(w.remote)
	pw := credentialHelper(t)
	gittest.Git(t, w.work, "remote", "set-url", "origin", url)
	gittest.Git(t, w.work, "config", "credential.helper", "halltest")
	gittest.WriteFile(t, filepath.Join(w.work, "src/cart.go"), lines(20, "mine", 3))
	w.push(t, "feat", "src/cart.go", lines(20, "theirs", 3), false)
	before := gittest.GitDirPrint(t, filepath.Join(w.work, ".git"))

	for _, tc := range []struct {
		password string
		ok       bool
	}{{"wrong", false}, {"secret", true}} {
		if err := os.WriteFile(pw, []byte(tc.password+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		wa, _ := newWatcher(t, remotewatch.Config{})
		wa.Track([]string{w.work})
		wa.Look(ctx)
		rs := wa.Remotes()
		if len(rs) != 1 {
			t.Fatalf("remotes: got %+v, want one", rs)
		}
		ps := wa.Pushed(w.work)
		if !tc.ok {
			// The server's own words come first in git's answer.
			if !strings.Contains(rs[0].Err, "who are you") || strings.Contains(rs[0].Err, "timeout") || len(ps) != 0 {
				t.Errorf("wrong credentials: got err %q and %d sides, want an authentication failure and none", rs[0].Err, len(ps))
			}
			continue
		}
		if rs[0].Err != "" {
			t.Fatalf("right credentials: got %q", rs[0].Err)
		}
		if len(ps) != 1 || ps[0].Branch.Name != "feat" || !ps[0].Predicted || !ps[0].Conflict {
			t.Errorf("right credentials: got %+v, want feat, a predicted conflict", ps)
		}
	}
	if after := gittest.GitDirPrint(t, filepath.Join(w.work, ".git")); after != before {
		t.Errorf("the person's repository changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// A helper the repository spells out as a command is never run by the
// Hall (only a plain-named one is, PlainHelper).
func TestRepositoryCommandHelperNotRun(t *testing.T) {
	isolate(t)
	ctx := context.Background()
	w := newWorld(t, nil)
	url := serveHTTPS(t, filepath.Dir(w.remote)) + "/" + filepath.Base(w.remote)
	ran := filepath.Join(gittest.TempDir(t), "ran")
	gittest.Git(t, w.work, "remote", "set-url", "origin", url)
	gittest.Git(t, w.work, "config", "credential.helper", "!touch "+ran+"; echo username=ana; echo password=secret")
	wa, _ := newWatcher(t, remotewatch.Config{})
	wa.Track([]string{w.work})
	wa.Look(ctx)
	if _, err := os.Stat(ran); err == nil {
		t.Error("the repository's command helper ran")
	}
	if rs := wa.Remotes(); len(rs) != 1 || rs[0].Err == "" {
		t.Errorf("remotes: got %+v, want one failing (no credentials)", rs)
	}
}
