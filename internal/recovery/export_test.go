package recovery

// HoldFinishing makes every snapshot Save or Take began call hold with
// its id as its finishing starts, before it waits for any loan: a test
// holds one there to see the store while a record is unfinished. Set
// before the first Save or Take.
func HoldFinishing(s *Store, hold func(id string)) { s.hold = hold }
