package gitscan

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/hall-dev/hall/internal/shellword"
)

// The git that talks to a remote (the watch of pushed branches, package
// remotewatch) needs what every other git the Hall runs goes without: the
// person's own transport and credentials. RunRemote is Run with exactly
// these differences, and nothing else:
//
//   - credential.helper is not reset: the helpers the person's own
//     configuration names (the system's and the global file: git runs in
//     a directory the Hall owns, so no repository's configuration is
//     read) answer for https, and a repository's own helper is added
//     only when it names a helper by a plain name (PlainHelper), which
//     runs git's `git credential-<name>`, a program no repository can
//     provide;
//   - core.sshCommand is not reset, and ssh runs with BatchMode=yes
//     (GIT_SSH_COMMAND: the person's GIT_SSH_COMMAND, GIT_SSH or
//     core.sshCommand, else ssh, with -o BatchMode=yes added): a key that
//     needs a passphrase, a host not yet known, fail instead of asking;
//   - nothing ever prompts: GIT_TERMINAL_PROMPT=0 as always, and
//     GIT_ASKPASS, SSH_ASKPASS empty (SSH_ASKPASS_REQUIRE=never).
//
// The transports stay file, https and ssh (GIT_ALLOW_PROTOCOL), every
// other command a configuration names stays off.

// plainHelperRE is a credential helper named by a plain name, no
// argument, no path, no shell ("!…").
var plainHelperRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

// PlainHelper reports whether a credential.helper value names a helper
// by a plain name (store, cache, osxkeychain, manager, libsecret, …):
// git then runs `git credential-<name>`, found in git's own programs or
// on PATH, never a command the configuration spells out.
func PlainHelper(v string) bool { return plainHelperRE.MatchString(v) }

// remoteReset are the fixedConfig keys RunRemote leaves to the person's
// configuration.
var remoteReset = map[string]bool{"credential.helper": true, "core.sshCommand": true}

// Auth is how a remote's git authenticates: the repository's
// plain-named credential helpers (added to the person's own) and the ssh
// command, BatchMode=yes. RemoteAuth makes it once per store; RunRemote
// takes it.
type Auth struct {
	Helpers []string // PlainHelper names only
	SSH     string   // GIT_SSH_COMMAND
}

// RemoteAuth reads the person's ssh command (GIT_SSH_COMMAND, GIT_SSH,
// core.sshCommand as seen from store, a directory the Hall owns; else
// ssh) and adds -o BatchMode=yes; of helpers (a repository's
// credential.helper values) it keeps the plain-named ones.
func (r *Runner) RemoteAuth(ctx context.Context, store string, helpers []string) Auth {
	var a Auth
	for _, h := range helpers {
		if PlainHelper(h) && !slices.Contains(a.Helpers, h) {
			a.Helpers = append(a.Helpers, h)
		}
	}
	cmd := os.Getenv("GIT_SSH_COMMAND")
	if cmd == "" {
		if p := os.Getenv("GIT_SSH"); p != "" {
			cmd = shellword.Quote(p)
		}
	}
	if cmd == "" {
		out, err := r.exec(ctx, Cmd{Dir: store, Args: []string{"config", "--get", "core.sshCommand"}, OK: []int{1}}, configEnv(nil))
		if err == nil {
			cmd = strings.TrimSpace(string(out.Stdout))
		}
	}
	if cmd == "" {
		cmd = "ssh"
	}
	a.SSH = cmd + " -o BatchMode=yes"
	return a
}

// RunRemote runs git against a remote on the Hall's behalf, in c.Dir, a
// repository the Hall owns (its watch store): the environment is Run's
// with the person's credential helpers and ssh command (see above), and
// auth's. It never prompts.
func (r *Runner) RunRemote(ctx context.Context, c Cmd, auth Auth) (Output, error) {
	config := make([][2]string, 0, len(fixedConfig)+len(auth.Helpers))
	for _, kv := range fixedConfig {
		if !remoteReset[kv[0]] {
			config = append(config, kv)
		}
	}
	if !driverFree[subcommand(c.Args)] {
		drivers, err := r.driverConfig(ctx, c.Dir)
		if err != nil {
			return Output{}, err
		}
		config = append(config, drivers...)
	}
	for _, h := range auth.Helpers {
		if PlainHelper(h) {
			config = append(config, [2]string{"credential.helper", h})
		}
	}
	ssh := auth.SSH
	if ssh == "" {
		ssh = "ssh -o BatchMode=yes"
	}
	env := configEnv(config)
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "GIT_SSH=") })
	env = append(env, "GIT_LITERAL_PATHSPECS=1", "GIT_ASKPASS=", "SSH_ASKPASS=", "SSH_ASKPASS_REQUIRE=never", "GIT_SSH_COMMAND="+ssh)
	return r.exec(ctx, c, append(env, c.Env...))
}

// PredictRemoteMerge predicts the merge of two commits as PredictMerge
// does, run in store (a watch store the Hall owns, a partial clone) with
// RunRemote's environment, so the blobs the merge needs and the store
// lacks are fetched into the store from its remote (git's own lazy fetch
// of a partial clone, with the person's credentials); alternates are
// other object directories read too (a repository's objects and the
// scratch holding a worktree's snapshot), never written. The merged tree
// is written into the store.
func (r *Runner) PredictRemoteMerge(ctx context.Context, store string, alternates []string, a, b string, auth Auth) (Merge, error) {
	c := Cmd{Dir: store, Args: mergeTreeArgs(a, b), OK: []int{1}}
	if len(alternates) > 0 {
		c.Env = []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + strings.Join(alternates, string(os.PathListSeparator))}
	}
	out, err := r.RunRemote(ctx, c, auth)
	if err != nil {
		return Merge{}, refusal(err)
	}
	return readMerge(out)
}
