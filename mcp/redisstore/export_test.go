package redisstore

import "time"

// SetSessionClockForTest gives s the clock of a replica whose time is not
// the machine's.
func SetSessionClockForTest(s *SessionStore, now func() time.Time) { s.now = now }
