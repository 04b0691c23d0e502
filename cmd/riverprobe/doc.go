// Command riverprobe measures the write side of rivers (README, "Rivers against fanout on
// read") on a seeded database: it drops every river, opens rivers for 2,000 followers of the most-followed
// author, reports their size, then times 30 shares by that author and the fanout after each.
// The shares are deleted again at the end. Run it with DSN set to the bench database:
//
//	DSN="$(go run ./cmd/tributary bench --print-dsn)" go run ./cmd/riverprobe
package main
