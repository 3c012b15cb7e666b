package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// MaxNamespaces bounds the namespaces one read may name.
const MaxNamespaces = 1000

// ErrNoNamespace is returned by a read that names no namespace: every read
// is scoped to the namespaces whose scans its caller may get, so an
// unscoped read is a caller's mistake, never "everything".
var ErrNoNamespace = errors.New("store: a read must name the namespaces it may see")

// inNamespaces is the condition "col IN (namespaces)" and its arguments.
func inNamespaces(col string, namespaces []string) (string, []any, error) {
	if len(namespaces) == 0 {
		return "", nil, ErrNoNamespace
	}
	if len(namespaces) > MaxNamespaces {
		return "", nil, fmt.Errorf("store: %d namespaces, more than the %d one read may name", len(namespaces), MaxNamespaces)
	}
	args := make([]any, len(namespaces))
	for i, ns := range namespaces {
		args[i] = ns
	}
	return col + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(namespaces)), ", ") + ")", args, nil
}

// idList is "col IN (ids)" and its arguments.
func idList(col string, ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return col + " IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")", args
}

func scanName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func unix(sec int64) time.Time { return time.Unix(sec, 0).UTC() }

type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// colOrganisation is the column every per-organisation table has.
const colOrganisation = "organisation_id"

// colAudit is the audit column of issues, templates and observations.
const colAudit = "audit"

// Columns of more than one table.
const (
	colPage = "page_id"
	colScan = "scan_id"
)

// tablePages is the pages table, which several steps of a scan write.
const tablePages = "pages"

// maxParams bounds one statement's bound values: well under SQLite's
// 32,766 and PostgreSQL's 65,535.
const maxParams = 8000

// placeholders is n bound values' places, "?, ?, ?".
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// valueRows is n rows of one bound value each, "(?), (?)", for a VALUES
// table: its one column is column1 on both engines.
func valueRows(n int) string { return strings.TrimSuffix(strings.Repeat("(?), ", n), ", ") }

// idArgs are ids as a statement's values.
func idArgs(ids []int64) []any {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return args
}

// insert writes rows with multi-row INSERTs of at most maxParams values.
func (w *ScanWriter) insert(ctx context.Context, table string, columns []string, rows [][]any) error {
	return w.insertEach(ctx, table, columns, nil, len(rows), func(i int, args []any) []any { return append(args, rows[i]...) })
}

// sameInEveryRow is a column a write gives one value in all its rows
// (the scan's id, its time, a new issue's state): on SQLite written into
// the statement once as a literal instead of bound for every row (binding
// a value costs the driver about 90 ns: 1.4 s of a first million-row
// ingest's 16.5 s); on PostgreSQL copied with each row. Its value is an
// int64 or a string, and one of a few for the whole scan, never one per
// call (an organisation's id): each distinct value makes a statement of
// its own, kept prepared until the scan's transaction ends.
type sameInEveryRow struct {
	column string
	value  any
}

// literal is the value as SQL text.
func (c sameInEveryRow) literal() (string, error) {
	switch v := c.value.(type) {
	case int64:
		return strconv.FormatInt(v, 10), nil
	case string:
		return sqlQuote(v), nil
	default:
		return "", fmt.Errorf("store: column %s: %T is not a value written as a literal", c.column, c.value)
	}
}

// chunkRows is how many of left rows the next statement of at most per
// rows takes: per, or for the rest the largest power of two within it.
// The statements of a scan then come in a few sizes, each prepared once
// (execChunk): preparing a statement of hundreds of rows of values costs
// about as much as running it, and every batch ended in a size of its own.
func chunkRows(left, per int) int {
	if left >= per {
		return per
	}
	n := 1
	for n*2 <= left {
		n *= 2
	}
	return n
}

// insertEach writes n rows; row appends the i-th row's values of columns
// to args, and same are the columns whose value is one for every row.
// On SQLite, multi-row INSERTs of at most maxParams bound values, made a
// statement at a time, so that a large write holds one statement's values,
// not every row's; on PostgreSQL, COPY (copyEach).
func (w *ScanWriter) insertEach(ctx context.Context, table string, columns []string, same []sameInEveryRow, n int,
	row func(i int, args []any) []any) error {
	if n == 0 {
		return nil
	}
	// Every row's values, in this order: columns' (row), then same's.
	names := slices.Clone(columns)
	for _, c := range same {
		names = append(names, c.column)
	}
	if w.s.engine == Postgres {
		return w.copyEach(ctx, table, names, same, n, row)
	}
	per := max(1, maxParams/len(columns))
	places := slices.Repeat([]string{"?"}, len(columns))
	for _, c := range same {
		lit, err := c.literal()
		if err != nil {
			return err
		}
		places = append(places, lit)
	}
	one := "(" + strings.Join(places, ", ") + ")"
	// OR FAIL: a row that breaks a constraint stops the statement with the
	// rows before it kept, where SQLite's default undoes the statement
	// alone, and to be able to, first copies every page the statement
	// changes to a statement journal (a temporary file): 5% of a first
	// million-row ingest's CPU. A scan's write fails whole on any error
	// (its transaction is rolled back), so nothing is kept either way.
	head := "INSERT OR FAIL INTO " + table + " (" + strings.Join(names, ", ") + ") VALUES "
	args := make([]any, 0, per*len(columns))
	for start := 0; start < n; {
		end := start + chunkRows(n-start, per)
		args = args[:0]
		for i := start; i < end; i++ {
			args = row(i, args)
		}
		query := head + strings.TrimSuffix(strings.Repeat(one+", ", end-start), ", ")
		start = end
		if _, err := w.execChunk(ctx, query, args...); err != nil {
			return fmt.Errorf("store: writing %s: %w", table, err)
		}
	}
	return nil
}

// updateIDs runs an UPDATE of table whose WHERE clause ends in "id IN ",
// over ids in chunks; each id must name a row it changes.
func (w *ScanWriter) updateIDs(ctx context.Context, table, prefix string, setArgs []any, ids []int64) error {
	per := maxParams - len(setArgs)
	args := make([]any, 0, maxParams)
	for start := 0; start < len(ids); {
		end := start + chunkRows(len(ids)-start, per)
		args = append(args[:0], setArgs...)
		for _, id := range ids[start:end] {
			args = append(args, id)
		}
		query := prefix + "(" + placeholders(end-start) + ")"
		res, err := w.execChunk(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("store: updating %s: %w", table, err)
		}
		if n, err := res.RowsAffected(); err == nil && n != int64(end-start) {
			return fmt.Errorf("store: updating %s: %d of %d changed (the store changed under the writer)", table, n, end-start)
		}
		start = end
	}
	return nil
}

// copyEach writes n rows of the columns names with one COPY, on the
// transaction's connection (so inside it), a row's values made as the
// copy reaches it (row's, then same's, as names lists them). PostgreSQL
// binding a multi-row INSERT's values cost it more than inserting them:
// a million-row scan's issues took 21.7 s of the server's time as INSERTs.
func (w *ScanWriter) copyEach(ctx context.Context, table string, names []string, same []sameInEveryRow, n int,
	row func(i int, args []any) []any) error {
	err := w.conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the connection is a %T, not pgx's", driverConn)
		}
		i := 0
		vals := make([]any, 0, len(names))
		copied, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, names, pgx.CopyFromFunc(func() ([]any, error) {
			if i == n {
				return nil, nil
			}
			// The copy encodes a row's values before asking for the next.
			vals = row(i, vals[:0])
			for _, col := range same {
				vals = append(vals, col.value)
			}
			i++
			return vals, nil
		}))
		if err == nil && copied != int64(n) {
			err = fmt.Errorf("%d of %d rows copied", copied, n)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: writing %s: %w", table, err)
	}
	return nil
}
