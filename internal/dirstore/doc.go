// Package dirstore is the sidecar-folder presence store, the Hall's
// embedded default: presence.Store on <registry root>/presences, one
// m1nd-presence-v0 JSON file per presence id, written to a temp file in the
// same folder and renamed into place, so a reader sees the old record or
// the new one, never half of either.
//
// It is the only package that knows files, inodes and fsnotify:
//
//   - Store lists, gets, upserts and deletes records, remembering each
//     file's decode by inode, size and time so a rescan reads only what
//     changed (store.go).
//   - Watch and WatchKeys follow the folder with fsnotify and name the file
//     each event is about; Reread brings those files up to date and answers
//     as a listing would (presence.KeyWatcher; watch.go, store.go).
//   - Reclaim removes, at boot, stale records and the temp files a crashed
//     writer left (presence.Reclaimer).
//   - TryLock takes the folder's advisory lock, so a second Hall on one
//     folder can say so (lock.go).
//
// Every reader reads regular files only, never follows a symlink and never
// waits on an open (readRecord), and takes a record only from the file
// named for its id. Out of file descriptors, reads fail with EBUSY rather
// than as an unreadable folder.
//
// What it does not do: decide staleness, collisions or anything about the
// roster (package presence), or know HTTP. The distributed backend beside
// it is internal/natsstore; both pass the contract in
// internal/presence/storetest.
package dirstore
