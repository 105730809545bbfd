// Package shellword quotes one word of a command line the Hall writes
// for a shell: the one rule, for the restore command a person pastes, the
// hook command an agent's CLI runs and the merge driver git runs.
package shellword

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Quote returns s as one word of a command line the Hall writes for
// a shell (a restore command a person pastes, a hook command an agent's
// CLI runs) that POSIX sh, bash and zsh read back as s, typed or run
// from a script: s itself when nothing in it is special to a shell
// (syntax.Quote's judgement, for POSIX), else s in single quotes (a
// quote in it closes them, is escaped, and opens them again). Single
// quotes, not syntax.Quote's double quotes or $'…': an interactive bash
// or zsh expands ! even inside double quotes (so it is never left bare
// either, nor zsh's ^), and a POSIX shell has no $'…' for a newline or a
// byte that is not UTF-8.
func Quote(s string) string {
	if q, err := syntax.Quote(s, syntax.LangPOSIX); err == nil && q == s && !strings.ContainsAny(s, "!^") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
