package recovery

// HoldFinishing makes every snapshot Save or Take began call hold as
// its finishing starts, before it waits for any loan: a test
// holds one there to see the store while a record is unfinished. Set it
// while no snapshot is being finished.
func HoldFinishing(s *Store, hold func()) { s.hold = hold }
