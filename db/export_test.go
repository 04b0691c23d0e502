package db

// AfterRiverBlock makes s call f after each block a river reconstruction commits (a test
// cancels the reconstruction's context there, as a killed worker would stop).
func AfterRiverBlock(s *Store, f func()) { s.riverCounts.afterBlock = f }
