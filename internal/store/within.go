package store

import (
	"fmt"
	"strings"
)

// Within narrows a read of a namespace's issues to some of its
// organisations: those named, and every organisation of the sectors named
// (a caller who reads by organisation grant). A nil *Within is every
// organisation of the read's namespaces.
type Within struct {
	Organisations []string
	Sectors       []string
}

// MaxWithinNames bounds the names one Within may hold: each is a query
// argument, and the engines bound those (SQLite at 32,766).
const MaxWithinNames = 4096

// cond is the condition on the organisations table (its columns prefixed
// with prefix, such as "o.") that keeps the organisations w names, with
// its arguments; "" for a nil w. An empty Within keeps none.
func (w *Within) cond(prefix string) (string, []any, error) {
	if w == nil {
		return "", nil, nil
	}
	if n := len(w.Organisations) + len(w.Sectors); n > MaxWithinNames {
		return "", nil, fmt.Errorf("store: a read within %d organisations and sectors, more than %d", n, MaxWithinNames)
	}
	var parts []string
	var args []any
	for _, c := range []struct {
		col   string
		names []string
	}{{"name", w.Organisations}, {"sector", w.Sectors}} {
		if len(c.names) == 0 {
			continue
		}
		parts = append(parts, prefix+c.col+" IN ("+strings.TrimSuffix(strings.Repeat("?, ", len(c.names)), ", ")+")")
		for _, n := range c.names {
			args = append(args, n)
		}
	}
	if len(parts) == 0 {
		return "1 = 0", nil, nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args, nil
}
