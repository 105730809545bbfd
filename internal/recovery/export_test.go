package recovery

// HoldFinishing makes every snapshot Save or Take began call hold as
// its finishing starts, before it waits for any loan: a test
// holds one there to see the store while a record is unfinished. Set it
// while no snapshot is being finished.
func HoldFinishing(s *Store, hold func()) { s.hold = hold }

// Decodes counts the records the store decoded (read) so far: List's
// cost in a test, counted rather than timed.
func Decodes(s *Store) int64 { return s.decodes.Load() }

// HashedBytes counts the worktree bytes the store's comparisons (Diff)
// hashed so far.
func HashedBytes(s *Store) int64 { return s.hashed.Load() }

// AfterBorrow makes every snapshot that borrows call borrowed with its
// object directory once the loan is written, before git writes a byte
// into it. Set it while no snapshot is being taken.
func AfterBorrow(s *Store, borrowed func(objects string)) { s.borrowed = borrowed }

// StatusChanged is a file's status change time, where a stat gives one.
var StatusChanged = statusChanged
