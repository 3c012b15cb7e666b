package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// errNoHistory is the history tools' answer when the server has no store.
var errNoHistory = errors.New("The issue history is not configured: this MCP server was started without --store " +
	"(see docs/history.md); the other tools work without it")

// errHistoryNotOpen is their answer while the store's database has not
// answered since the server started.
var errHistoryNotOpen = errors.New("The issue history's database has not answered since this MCP server started: " +
	"it is retried in the background (see the server's log); the other tools work meanwhile")

// history is the store and the namespaces a history call may read: the
// server's own, where invoke has checked the caller may get CwacScans. The
// store is queried with them, so totals count nothing else.
func (s *Server) history() (*store.Store, []string, error) {
	st, err := s.cfg.History.Get()
	switch {
	case errors.Is(err, store.ErrNotConfigured):
		return nil, nil, errNoHistory
	case err != nil:
		return nil, nil, errHistoryNotOpen
	}
	return st, []string{s.cfg.Namespace}, nil
}

// checkOrganisationReach refuses an organisation the caller's reach does
// not cover, with the same words whether or not the history holds it (a
// refusal tells nothing of organisations outside the caller's reach).
func (s *Server) checkOrganisationReach(ctx context.Context, st *store.Store, call *callInfo, organisation string) error {
	ok, err := call.reach.CoversRecorded(ctx, st, s.cfg.Namespace, organisation)
	if err != nil {
		return fmt.Errorf("reading the issue history: %w", err)
	}
	if !ok {
		return orgaccess.NotCovered("this organisation")
	}
	return nil
}

// historyError words a store error for a caller: an organisation that is
// not there is a plain answer, anything else the store's failure.
func (s *Server) historyError(organisation string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return errors.New(store.NoOrganisation(s.cfg.Namespace, organisation))
	}
	return fmt.Errorf("reading the issue history: %w", err)
}

// historyAnswerReserve is the part of an answer kept for its fields other
// than the list (issues or points), which fills the rest.
const historyAnswerReserve = 4 << 10

// jsonLen is the size of v encoded as JSON (0 if it cannot be: the answer
// itself would then fail to encode, and say so).
func jsonLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}
