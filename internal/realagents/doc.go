// Package realagents holds the tests that run the real agent CLIs (Claude
// Code, Codex CLI, Gemini CLI, at the versions scripts/install-agent-clis
// pins) with the Hall's hooks installed as docs/hooks.md says, against a
// real Hall and a scripted model server (package modelstub), and assert
// the text each model receives from the Hall, and how many times.
//
// The CLIs are found in $HALL_AGENT_CLIS/node_modules/.bin (default
// ~/.cache/hall/agent-clis), else on PATH. A missing CLI skips its tests,
// saying how to install it, except under CI=true, where it fails them.
//
// The package has no code outside its tests.
package realagents
