package store

import "time"

// SetClock sets the store's clock (retention by age, ingested_at).
func SetClock(s *Store, now func() time.Time) { s.now = now }
