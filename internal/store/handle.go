package store

import (
	"context"
	"errors"
	"sync/atomic"
	"time"
)

// ErrNotConfigured is a Handle's answer when the server was started without
// a store: history is off, on purpose.
var ErrNotConfigured = errors.New("store: no issue history is configured")

// ErrNotOpenYet is a Handle's answer while its database has not answered
// yet: the server retries in the background and serves everything else.
var ErrNotOpenYet = errors.New("store: the issue history's database has not answered yet; it is retried in the background")

// Handle is the store a server reads through, which may open after the
// server started: a database that is down when the server starts costs the
// history until it answers, not the server's other tools. The zero Handle,
// and a nil one, have no store configured.
type Handle struct {
	configured bool
	store      atomic.Pointer[Store]
}

// NewHandle returns a handle of an open store (nil: none configured).
func NewHandle(s *Store) *Handle {
	h := &Handle{configured: s != nil}
	h.store.Store(s)
	return h
}

// Get is the store once open; ErrNotConfigured or ErrNotOpenYet otherwise.
func (h *Handle) Get() (*Store, error) {
	if h == nil || !h.configured {
		return nil, ErrNotConfigured
	}
	if s := h.store.Load(); s != nil {
		return s, nil
	}
	return nil, ErrNotOpenYet
}

// Close closes the store if it opened.
func (h *Handle) Close() error {
	if h == nil {
		return nil
	}
	if s := h.store.Swap(nil); s != nil {
		return s.Close()
	}
	return nil
}

// Backoff is how long OpenInBackground waits between tries: First after the
// first failure, doubling up to Max.
type Backoff struct{ First, Max time.Duration }

// DefaultBackoff retries a database that is down every 5 s at first, then
// up to every 5 minutes.
var DefaultBackoff = Backoff{First: 5 * time.Second, Max: 5 * time.Minute}

// OpenInBackground checks dsn, then tries to open the store once. If the
// database does not answer, it returns a handle without a store at once and
// keeps trying in a goroutine until one try succeeds or ctx ends, telling
// failed each failure (with the wait before the next try); opened is called
// once with the store, from whichever goroutine opened it. A DSN that can
// never work (no scheme, a relative path, options smuggled in) is an error
// at once, not retried. An empty dsn is a handle with no store configured.
func OpenInBackground(ctx context.Context, dsn string, b Backoff, failed func(err error, retryIn time.Duration),
	opened func(*Store)) (*Handle, error) {
	if dsn == "" {
		return NewHandle(nil), nil
	}
	if _, _, _, err := parseDSN(dsn); err != nil {
		return nil, err
	}
	h := &Handle{configured: true}
	try := func() error {
		s, err := Open(ctx, dsn)
		if err != nil {
			return err
		}
		h.store.Store(s)
		opened(s)
		return nil
	}
	err := try()
	if err == nil {
		return h, nil
	}
	wait := b.First
	failed(err, wait)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			err := try()
			if err == nil || ctx.Err() != nil {
				return
			}
			wait = min(2*wait, b.Max)
			failed(err, wait)
		}
	}()
	return h, nil
}
