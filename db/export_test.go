package db

import "github.com/riverqueue/river"

// AfterRiverBlock makes s call f after each block a river reconstruction commits (a test
// cancels the reconstruction's context there, as a killed worker would stop).
func AfterRiverBlock(s *Store, f func()) { s.riverCounts.afterBlock = f }

// JobEvents subscribes to the ends of s's jobs (completed, or failed and to be retried); set
// s.Jobs first.
func JobEvents(s *Store) (<-chan *river.Event, func()) {
	c, err := s.jobClient(nil)
	if err != nil {
		panic(err)
	}
	return c.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
}
