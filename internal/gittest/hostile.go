package gittest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// HostileHooks are the hooks Hostile installs, each in the repository's
// hooks folder and in the one its core.hooksPath names.
var HostileHooks = []string{
	"post-index-change", "pre-commit", "post-commit", "post-checkout", "post-merge",
	"reference-transaction", "pre-auto-gc", "post-rewrite", "pre-push", "fsmonitor-watchman",
}

// Hostile arms the repository of the worktree wt (owned by the test's
// user, as an unpacked archive would be) with configuration that makes
// git run commands: core.fsmonitor, hooks (core.hooksPath and the
// repository's own hooks folder), a clean/smudge filter and a process
// filter, a merge driver (also merge.default), diff.external, a diff
// driver's command and textconv, a pager, editors, a credential helper,
// an ssh command, an askpass, a proxy, an alternate-refs command, a
// remote's upload-pack and receive-pack, and commit and tag signing.
// Every file gets the filter, merge and diff attributes (in the
// repository's info/attributes, so the worktree's files are left as they
// are). Each command touches a file named for it in the folder returned:
// Ran lists what ran.
//
// Arm a repository after the test's own setup: any git the test runs in
// it afterwards runs those commands too.
func Hostile(tb testing.TB, wt string) (sentinels string) {
	tb.Helper()
	sentinels = TempDir(tb)
	common := Git(tb, wt, "rev-parse", "--path-format=absolute", "--git-common-dir")
	hooks := filepath.Join(TempDir(tb), "hooks")
	touch := func(name string) string { return "touch '" + filepath.Join(sentinels, name) + "'" }
	for _, dir := range []string{hooks, filepath.Join(common, "hooks")} {
		for _, h := range HostileHooks {
			WriteFileMode(tb, filepath.Join(dir, h), "#!/bin/sh\n"+touch("hook."+h)+"\n", 0o755)
		}
	}
	config := [][2]string{
		{"core.fsmonitor", touch("core.fsmonitor")},
		{"core.hooksPath", hooks},
		{"core.pager", touch("core.pager")},
		{"core.editor", touch("core.editor")},
		{"sequence.editor", touch("sequence.editor")},
		{"core.askPass", touch("core.askPass")},
		{"core.sshCommand", touch("core.sshCommand")},
		{"core.gitProxy", touch("core.gitProxy")},
		{"core.alternateRefsCommand", touch("core.alternateRefsCommand")},
		{"credential.helper", "!" + touch("credential.helper")},
		{"filter.x.clean", touch("filter.clean") + "; tr a-z A-Z"},
		{"filter.x.smudge", touch("filter.smudge") + "; cat"},
		{"filter.x.required", "true"},
		{"filter.p.process", touch("filter.process")},
		{"merge.x.driver", touch("merge.driver") + "; false"},
		{"merge.x.name", "hostile"},
		{"merge.default", "x"},
		{"diff.external", touch("diff.external")},
		{"diff.x.command", touch("diff.command")},
		{"diff.x.textconv", touch("diff.textconv") + "; cat"},
		{"remote.origin.url", "ssh://example.invalid/r.git"},
		{"remote.origin.uploadpack", touch("remote.uploadpack")},
		{"remote.origin.receivepack", touch("remote.receivepack")},
		{"commit.gpgSign", "true"},
		{"tag.gpgSign", "true"},
		{"gpg.program", touch("gpg.program")},
		{"log.showSignature", "true"},
		{"protocol.ext.allow", "always"},
	}
	for _, kv := range config {
		Git(tb, "", "config", "-f", filepath.Join(common, "config"), kv[0], kv[1])
	}
	attrs := "* filter=x diff=x merge=x\n*.bin filter=p\n"
	WriteFile(tb, filepath.Join(common, "info", "attributes"), attrs)
	return sentinels
}

// Ran lists the commands of a Hostile repository that ran: the files
// touched in its sentinels folder, sorted.
func Ran(tb testing.TB, sentinels string) []string {
	tb.Helper()
	entries, err := os.ReadDir(sentinels)
	if err != nil {
		tb.Fatal(err)
	}
	var ran []string
	for _, e := range entries {
		ran = append(ran, e.Name())
	}
	slices.Sort(ran)
	return ran
}

// NoneRan fails the test if any command of a Hostile repository ran,
// naming them and what was being done.
func NoneRan(tb testing.TB, sentinels, doing string) {
	tb.Helper()
	if ran := Ran(tb, sentinels); len(ran) > 0 {
		tb.Errorf("%s ran the repository's commands: %s", doing, strings.Join(ran, ", "))
	}
}
