// Package overlap derives overlaps: two live presences of one brain, in
// different worktrees, both mutating, that changed the same repository
// file. Where git can see both worktrees and predicts their merge will
// not be clean, the overlap's verdict is conflict.
//
// It is the pure half of issue #20: it knows no git and no HTTP. Each
// side's git answer comes in as plain data (Git: the files git says the
// worktree changed against its base, or why git could not say), and the
// merge prediction through a small interface (Merges) that a scanner's
// cache answers; package gitscan is the half that runs git. A collision
// (package collision) is the other relation: two presences in one place
// now. Two presences in one worktree are a collision's concern, never an
// overlap.
//
// Paths here are repository-relative, "/"-separated: a declared entry or
// an observed file is made relative to its side's worktree (one outside
// it is dropped), and compared segment by segment, so a declared
// directory overlaps the files under it, as the collision path rule does.
// Each file of an overlap says, per side, what showed it: declared (the
// working set), observed (the hooks saw the tool change it: touched) or
// git (git's answer), never one taken for another.
package overlap
