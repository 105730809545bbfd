package gitscan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hall-dev/hall/internal/shellword"
)

// The git the Hall runs is its own, not the repository's: a repository's
// configuration (.git/config, the files it includes, info/attributes and
// .gitattributes naming drivers) can name commands git runs as the
// Hall's user, and a repository owned by that user (an unpacked archive,
// a copied folder) passes git's safe.directory check, which stays on.
// Every process Run starts gets the environment built here, once:
//
//   - fixedConfig turns off, by configuration given on git's command
//     line (GIT_CONFIG_COUNT: it wins over every file), every setting
//     that names a command by a fixed key;
//   - driverConfig turns off the drivers a configuration defines under a
//     name of its own (filter.<name>.clean, merge.<name>.driver, ...),
//     read first with git config, which runs nothing (and kept while the
//     files it read stay as they were: driverCache), for the commands
//     that can run them (driverFree lists the ones that cannot);
//   - fixedEnv limits the transports and stops a proxy command, and
//     every path given to git is read literally (GIT_LITERAL_PATHSPECS).
//
// Diffs are taken with --no-ext-diff --no-textconv where they are taken
// (a diff driver's command and textconv, diff.external), and only by
// name or raw, which never runs either.

// fixedConfig is every setting with a fixed key that can make git run a
// command (or that this package needs on every process), with the value
// that does not. An empty value resets a list (credential.helper) or
// names no command (core.askPass).
var fixedConfig = [][2]string{
	{"core.fsmonitor", "false"},        // no fsmonitor hook, no fsmonitor--daemon
	{"core.hooksPath", os.DevNull},     // no hook: /dev/null/<hook> is never a program
	{"core.pager", "cat"},              // (GIT_PAGER=cat as well)
	{"core.editor", ":"},               // no editor
	{"sequence.editor", ":"},           // no editor
	{"core.askPass", ""},               // no askpass (the person's GIT_ASKPASS still wins)
	{"core.sshCommand", "ssh"},         // the person's GIT_SSH_COMMAND still wins
	{"core.alternateRefsCommand", ""},  // empty: no program to start
	{"credential.helper", ""},          // resets the list the files built
	{"commit.gpgSign", "false"},        // commit-tree signs nothing
	{"tag.gpgSign", "false"},           // nor a tag
	{"push.gpgSign", "false"},          // nor a push
	{"log.showSignature", "false"},     // no gpg to verify one
	{"gc.auto", "0"},                   // no git gc --auto behind a command
	{"maintenance.auto", "false"},      // no git maintenance either
	{"protocol.allow", "never"},        // (GIT_ALLOW_PROTOCOL as well)
	{"protocol.file.allow", "always"},  // the three transports the Hall
	{"protocol.https.allow", "always"}, // would ever use
	{"protocol.ssh.allow", "always"},
	// One thread: no parallel lstat of the index's entries
	// (core.preloadIndex, up to 20 threads for 10,000 files) nor parallel
	// reading of the index (index.threads). Measured beside them on
	// 10,000 files, a burst's overlaps were listed sooner, not later.
	{"core.preloadIndex", "false"},
	{"index.threads", "1"},
}

// allowedProtocols are the only transports git may use: GIT_ALLOW_PROTOCOL
// overrides every protocol.<name>.allow a configuration sets (protocol.
// ext.allow=always would run a command).
const allowedProtocols = "file:https:ssh"

// fixedEnv is added to every git's environment. GIT_PROXY_COMMAND set,
// even empty, keeps git from reading core.gitProxy (where the first
// match wins, so the command line could not override a repository's).
var fixedEnv = []string{
	"GIT_OPTIONAL_LOCKS=0", // git status never rewrites the index
	"GIT_TERMINAL_PROMPT=0",
	"GIT_PAGER=cat",
	"GIT_EDITOR=:",
	"GIT_SEQUENCE_EDITOR=:",
	"GIT_ALLOW_PROTOCOL=" + allowedProtocols,
	"LC_ALL=C",
}

// driverFree are the git commands the Hall runs that run no filter, merge
// driver or diff driver whatever the configuration says: they read
// neither a working file nor the index's stat data (git write-tree does:
// it ran a clean filter over a racily clean entry) and merge nothing (the
// Hall never asks them for --filters, --textconv or a patch). Every other
// command has the drivers turned off first (driverConfig), at the cost of
// one git config where the configuration is not kept yet.
var driverFree = map[string]bool{
	"version": true, "config": true, "rev-parse": true, "symbolic-ref": true, "merge-base": true,
	"commit-tree": true, "cat-file": true, "ls-tree": true, "diff-tree": true,
	"check-ignore": true, "pack-objects": true, "prune-packed": true,
}

// MaxDrivers bounds the named drivers a configuration may define: past
// it git is not run (a configuration of thousands of filters is no
// repository's own, and the environment that turns them off grows with
// them).
const MaxDrivers = 256

// driverKeys are the settings under a name of a configuration's own that
// name a command, by section, and the value that names none.
// filter.<name>.required=false: a filter with no command then passes the
// file through, as git does for an attribute naming no filter. A merge
// driver is replaced by git's own three-way text merge (merge-file, what
// git uses when no driver is defined); remote.<name>.uploadpack and
// receivepack get git's own programs.
func driverKeys(git string) map[string][][2]string {
	return map[string][][2]string{
		"filter": {{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}},
		"merge":  {{"driver", shellword.Quote(git) + " merge-file -q --marker-size=%L %A %O %B"}},
		"remote": {{"uploadpack", "git-upload-pack"}, {"receivepack", "git-receive-pack"}},
	}
}

// neutralEnv is the environment a git process c runs with: the
// process's own (less what points git elsewhere, environ), fixedEnv,
// fixedConfig and, unless c's command is driverFree, driverConfig for
// c.Dir, then c.Env.
func (r *Runner) neutralEnv(ctx context.Context, c Cmd) ([]string, error) {
	config := fixedConfig
	if !driverFree[subcommand(c.Args)] {
		drivers, err := r.driverConfig(ctx, c.Dir)
		if err != nil {
			return nil, err
		}
		config = append(config[:len(config):len(config)], drivers...)
	}
	env := configEnv(config)
	if !refusesMagic[subcommand(c.Args)] {
		env = append(env, "GIT_LITERAL_PATHSPECS=1") // a path is a path: ":x" or "*.go" is a file's name, never magic
	}
	return append(env, c.Env...), nil
}

// refusesMagic are the commands that take paths, never pathspecs: they
// refuse every pathspec magic, the global literal one too (git
// check-ignore: "pathspec magic not supported by this command").
var refusesMagic = map[string]bool{"check-ignore": true}

// configEnv is environ, fixedEnv and config as GIT_CONFIG_COUNT entries.
func configEnv(config [][2]string) []string {
	env := append(environ(), fixedEnv...)
	if _, ok := os.LookupEnv("GIT_PROXY_COMMAND"); !ok {
		env = append(env, "GIT_PROXY_COMMAND=")
	}
	env = append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(config)))
	for i, kv := range config {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return env
}

// driverConfig reads the names of the drivers the configuration seen
// from dir defines (every file git reads there, includes followed: git
// config --list runs nothing) and answers the settings that turn each
// off; kept for dir while the files it was read from stay as they were
// (driverCache).
func (r *Runner) driverConfig(ctx context.Context, dir string) ([][2]string, error) {
	if config, ok := r.drivers.get(dir); ok {
		return config, nil
	}
	// Bounded as any git's output, but never below the default: a small
	// MaxOutput bounds the answers, not the configuration git reads.
	list := Cmd{Dir: dir, Args: []string{"config", "--null", "--show-origin", "--list"}, maxOutput: max(r.maxOutput, DefaultMaxOutput)}
	out, err := r.exec(ctx, list, configEnv(fixedConfig))
	if err != nil {
		return nil, err
	}
	if out.Cut {
		return nil, &Error{Code: Failed, Op: "git config", Err: errorf("the configuration is over git's output bound")}
	}
	recs := parseConfigList(out.Stdout)
	keys := driverKeys(r.path)
	seen := map[[2]string]bool{}
	var config [][2]string
	for _, rec := range recs {
		// section.name.key: the name is everything between the first dot
		// and the last (it may hold dots), its case kept as git lists it.
		first, last := strings.IndexByte(rec.key, '.'), strings.LastIndexByte(rec.key, '.')
		if first < 0 || last <= first || rec.origin == "command line:" {
			continue
		}
		section, name := rec.key[:first], rec.key[first+1:last]
		if keys[section] == nil || seen[[2]string{section, name}] {
			continue
		}
		seen[[2]string{section, name}] = true
		if len(seen) > MaxDrivers {
			return nil, &Error{Code: Failed, Op: "git config", Err: fmt.Errorf("the configuration names over %d drivers", MaxDrivers)}
		}
		for _, kv := range keys[section] {
			config = append(config, [2]string{section + "." + name + "." + kv[0], kv[1]})
		}
	}
	if filepath.IsAbs(dir) {
		if sources, ok := configSources(dir, recs); ok {
			r.drivers.put(dir, driverEntry{config: config, sources: sources})
		}
	}
	return config, nil
}

// subcommand is the git command args run: the first argument that is
// not a global option.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c" || args[i] == "-C":
			i++ // a config setting or a directory, not the command
		case !strings.HasPrefix(args[i], "-"):
			return args[i]
		}
	}
	return ""
}
