package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestHandleWithoutStore(t *testing.T) {
	var none *Handle
	for name, h := range map[string]*Handle{"nil": none, "zero": {}, "NewHandle(nil)": NewHandle(nil)} {
		if s, err := h.Get(); s != nil || !errors.Is(err, ErrNotConfigured) {
			t.Errorf("%s: Get = %v, %v; want ErrNotConfigured", name, s, err)
		}
		if err := h.Close(); err != nil {
			t.Errorf("%s: Close: %v", name, err)
		}
	}
	h, err := OpenInBackground(context.Background(), "", DefaultBackoff, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Get(); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("an empty DSN: %v, want ErrNotConfigured", err)
	}
}

// A DSN that can never work is refused at once, with nothing retried.
func TestOpenInBackgroundRefusesBadDSN(t *testing.T) {
	for _, dsn := range []string{"history.db", "sqlite://relative.db", "sqlite:///tmp/h.db?_pragma=x", "mysql://x"} {
		h, err := OpenInBackground(context.Background(), dsn, DefaultBackoff,
			func(error, time.Duration) { t.Errorf("%s: retried", dsn) }, func(*Store) { t.Errorf("%s: opened", dsn) })
		if err == nil || h != nil {
			t.Errorf("%s: handle %v, error %v; want an error", dsn, h, err)
		}
	}
}

// A store whose database cannot be opened yet (here: its directory does not
// exist) is retried with a growing wait, and opens once it can; until then
// Get says so.
func TestOpenInBackgroundRetries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not-yet")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var waits []time.Duration
	opened := make(chan *Store, 1)
	h, err := OpenInBackground(ctx, "sqlite://"+filepath.Join(dir, "history.db"), Backoff{First: 5 * time.Millisecond, Max: 20 * time.Millisecond},
		func(err error, retryIn time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			waits = append(waits, retryIn)
		}, func(s *Store) { opened <- s })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Get(); !errors.Is(err, ErrNotOpenYet) {
		t.Fatalf("before the database answers: %v, want ErrNotOpenYet", err)
	}
	// Let it fail a few times, then make the directory.
	for {
		mu.Lock()
		n := len(waits)
		mu.Unlock()
		if n >= 4 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s := <-opened
	got, err := h.Get()
	if err != nil || got != s {
		t.Fatalf("after opening: %v, %v", got, err)
	}
	mu.Lock()
	if waits[0] != 5*time.Millisecond || waits[1] != 10*time.Millisecond || waits[2] != 20*time.Millisecond || waits[3] != 20*time.Millisecond {
		t.Errorf("waits %v, want 5ms doubling to at most 20ms", waits)
	}
	mu.Unlock()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Get(); !errors.Is(err, ErrNotOpenYet) {
		t.Errorf("after Close: %v", err)
	}
}

// Once ctx ends, no more tries.
func TestOpenInBackgroundStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tries := make(chan struct{}, 100)
	h, err := OpenInBackground(ctx, "sqlite://"+filepath.Join(t.TempDir(), "missing", "h.db"), Backoff{First: time.Millisecond, Max: time.Millisecond},
		func(error, time.Duration) { tries <- struct{}{} }, func(*Store) { t.Error("opened") })
	if err != nil {
		t.Fatal(err)
	}
	<-tries
	cancel()
	time.Sleep(20 * time.Millisecond)
	n := len(tries)
	time.Sleep(20 * time.Millisecond)
	if len(tries) > n+1 {
		t.Errorf("still trying after the context ended: %d more tries", len(tries)-n)
	}
	if _, err := h.Get(); !errors.Is(err, ErrNotOpenYet) {
		t.Errorf("Get: %v", err)
	}
}
