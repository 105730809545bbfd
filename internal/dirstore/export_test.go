package dirstore

// TempPrefix is the name prefix of a file being written, for the external
// tests (package dirstore_test) that play a writer caught mid-write.
const TempPrefix = tempPrefix
