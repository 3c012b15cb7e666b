package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// UnrecordedState says whether an unrecorded scan will be tried again.
type UnrecordedState string

// The states of an unrecorded scan.
const (
	// Retrying: recording failed and another attempt is due.
	Retrying UnrecordedState = "retrying"
	// LeftOut: the scan will not be recorded (given up after its
	// attempts, older than a scan already recorded, or without results).
	LeftOut UnrecordedState = "left_out"
	// Partial: the scan is recorded, but some of its results were not
	// read (Reason says which and why: a result file that is a link or a
	// pipe), so its figures lack their rows.
	Partial UnrecordedState = "partial"
)

// MaxUnrecordedReasonBytes bounds the reason kept for an unrecorded scan
// (an error may quote a file's content).
const MaxUnrecordedReasonBytes = 1024

// UnrecordedScan is a finished scan the history's writer could not record,
// or recorded in part (Partial), and why.
type UnrecordedScan struct {
	UID       string
	Namespace string
	Name      string
	State     UnrecordedState
	Reason    string
	// Attempts counts the failed attempts while the store answered.
	Attempts  int
	UpdatedAt time.Time
}

// NoteUnrecorded records (or replaces) why a scan is not in the history.
func (s *Store) NoteUnrecorded(ctx context.Context, u UnrecordedScan) error {
	if u.State != Retrying && u.State != LeftOut && u.State != Partial {
		return fmt.Errorf("store: unrecorded scan state %q is not %q, %q or %q", u.State, Retrying, LeftOut, Partial)
	}
	at := u.UpdatedAt
	if at.IsZero() {
		at = s.now()
	}
	reason := textcap.Head(u.Reason, MaxUnrecordedReasonBytes)
	_, err := s.db.ExecContext(ctx, s.q(`INSERT INTO unrecorded_scans (uid, namespace, name, state, reason, attempts, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (uid) DO UPDATE SET namespace = excluded.namespace, name = excluded.name, state = excluded.state,
			reason = excluded.reason, attempts = excluded.attempts, updated_at = excluded.updated_at`),
		u.UID, u.Namespace, u.Name, string(u.State), reason, u.Attempts, at.Unix())
	if err != nil {
		return fmt.Errorf("store: noting unrecorded scan %q: %w", u.UID, err)
	}
	return nil
}

// ClearUnrecorded forgets why a scan was not recorded (it is now).
func (s *Store) ClearUnrecorded(ctx context.Context, uid string) error {
	if _, err := s.db.ExecContext(ctx, s.q(`DELETE FROM unrecorded_scans WHERE uid = ?`), uid); err != nil {
		return fmt.Errorf("store: clearing unrecorded scan %q: %w", uid, err)
	}
	return nil
}

// Unrecorded says why a scan is not in the history, or nil when the writer
// noted nothing for it.
func (s *Store) Unrecorded(ctx context.Context, uid string) (*UnrecordedScan, error) {
	u := UnrecordedScan{UID: uid}
	var state string
	var at int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT namespace, name, state, reason, attempts, updated_at FROM unrecorded_scans WHERE uid = ?`), uid).
		Scan(&u.Namespace, &u.Name, &state, &u.Reason, &u.Attempts, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("store: reading unrecorded scan %q: %w", uid, err)
	}
	u.State, u.UpdatedAt = UnrecordedState(state), time.Unix(at, 0).UTC()
	return &u, nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }
