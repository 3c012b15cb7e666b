package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/resultspath"
)

// resultsTree is where the scans' results live, read as file systems: the
// results volume (a directory, through an os.Root) or the results bucket
// (its keys under the prefix, through objectstore). Everything the tools,
// the dashboard and the issue history read goes through one, so the same
// results read the same either way and every path is confined the same
// way: checked by resultspath.Check, then resolved inside the tree.
type resultsTree interface {
	// open is the whole tree, readable while ctx lives; call done when
	// finished with it.
	open(ctx context.Context) (fsys fs.FS, done func(), err error)
	// sub is the directory rel of the tree, the same way.
	sub(ctx context.Context, rel string) (fsys fs.FS, done func(), err error)
	// id tells trees apart in the caches a process's servers share.
	id() string
	// where says where the results are, for a person.
	where() string
	// walks says whether the tree is looked through for results
	// directories no scan claims (CWAC run by hand). On a volume that is a
	// cached walk; in a bucket it would be a listing per directory, every
	// few seconds, for directories nobody puts there, so it is not done:
	// such results are still read by their path.
	walks() bool
}

// newResultsTree is the bucket when one is given, else the volume at root.
func newResultsTree(root string, bucket *objectstore.Store) resultsTree {
	if bucket != nil {
		return bucketTree{store: bucket}
	}
	return volumeTree{path: root}
}

// errNoRoot means the results volume is not mounted or not readable.
var errNoRoot = errors.New("results root is not available")

// volumeTree is the results volume: every path opened through an os.Root,
// so neither "..", absolute paths nor symlinks can leave it.
type volumeTree struct {
	path string
}

// openRoot opens the volume's root per call, so a volume mounted after
// start-up is found; the caller closes it.
func (v volumeTree) openRoot() (*os.Root, error) {
	root, err := os.OpenRoot(v.path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoRoot, err)
	}
	return root, nil
}

func (v volumeTree) open(ctx context.Context) (fs.FS, func(), error) {
	root, err := v.openRoot()
	if err != nil {
		return nil, nil, err
	}
	return callFS{ctx: ctx, root: root}, func() { closeReadOnly(root) }, nil
}

// sub is confined to the directory itself (its own os.Root), regular
// files and directories only.
func (v volumeTree) sub(ctx context.Context, rel string) (fs.FS, func(), error) {
	if err := resultspath.Check(rel); err != nil {
		return nil, nil, err
	}
	root, err := v.openRoot()
	if err != nil {
		return nil, nil, err
	}
	subRoot, err := root.OpenRoot(rel)
	closeReadOnly(root)
	if err != nil {
		return nil, nil, err
	}
	return callFS{ctx: ctx, root: subRoot}, func() { closeReadOnly(subRoot) }, nil
}

func (v volumeTree) id() string    { return "volume:" + v.path }
func (v volumeTree) where() string { return "the results volume (" + v.path + ")" }
func (v volumeTree) walks() bool   { return true }

// bucketTree is the results bucket: objects only (no FIFO or link can be
// planted in it), every request carrying the call's context, names checked
// so that no key outside the prefix can be named.
type bucketTree struct {
	store *objectstore.Store
}

func (b bucketTree) open(ctx context.Context) (fs.FS, func(), error) {
	return b.store.Root(ctx), func() {}, nil
}

func (b bucketTree) sub(ctx context.Context, rel string) (fs.FS, func(), error) {
	if err := resultspath.Check(rel); err != nil {
		return nil, nil, err
	}
	fsys, err := b.store.FS(ctx, rel)
	if err != nil {
		return nil, nil, err
	}
	return fsys, func() {}, nil
}

func (b bucketTree) id() string    { return "bucket:" + b.store.Location() }
func (b bucketTree) where() string { return "the results bucket (" + b.store.Location() + ")" }
func (b bucketTree) walks() bool   { return false }

// closeReadOnly closes a root, file or stream this server only read from:
// nothing written can be lost, and what was read has already been checked,
// so a Close error has nothing left to report.
func closeReadOnly(c io.Closer) {
	_ = c.Close()
}

// resolveResultsDir finds CWAC's results directory for a scan: resultsPath
// itself when it names one, else the newest CWAC directory for auditName
// directly inside it.
func resolveResultsDir(ctx context.Context, tree resultsTree, resultsPath, auditName string) (string, error) {
	if err := resultspath.Check(resultsPath); err != nil {
		return "", err
	}
	fsys, done, err := tree.open(ctx)
	if err != nil {
		return "", err
	}
	defer done()
	dir, _, err := resolveResultsDirIn(fsys, resultsPath, auditName)
	return dir, err
}
