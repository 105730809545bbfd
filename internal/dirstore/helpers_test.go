package dirstore_test

// brain is the brain most tests write on: the spec example's.
const brain = "/home/ana/shop"
