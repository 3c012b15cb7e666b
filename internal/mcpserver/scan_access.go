package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"regexp"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/resultspath"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// scanAccess is the one place tools look things up: scans in the API server, and
// their results in the results tree (the volume or the bucket), confined to
// it. Tools never touch the client or the results for reading in any other
// way.
type scanAccess struct {
	client    client.Client
	namespace string
	tree      resultsTree
}

// scanIDRE is a Kubernetes object name; anything else cannot name a scan, and
// is refused before it reaches the API server or a log line.
var scanIDRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// scan finds a scan by ID, with the original server's error when there is none.
func (st scanAccess) scan(ctx context.Context, call *callInfo, id string) (*cwacv1alpha1.CwacScan, error) {
	if id == "" {
		return nil, errors.New("scan_id is required")
	}
	if !scanIDRE.MatchString(id) {
		return nil, noScanError{truncate(id, 256)}
	}
	call.Target = st.namespace + "/" + id
	scan := &cwacv1alpha1.CwacScan{}
	if err := st.client.Get(ctx, client.ObjectKey{Namespace: st.namespace, Name: id}, scan); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, noScanError{id}
		}
		return nil, fmt.Errorf("reading scan %s: %w", id, err)
	}
	return scan, nil
}

// The scan list is served from an informer, which watches.
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscans,verbs=list;watch

// scanListSyncTimeout bounds the wait for the scan cache's first list.
const scanListSyncTimeout = 30 * time.Second

// WithScanListCache returns c with its lists of CwacScans served from an
// informer's cache of the namespace's scans (StartScanCache), so
// cwac_list_scans costs no LIST of every scan per call. Gets stay direct: a
// scan just created must be found at once. When the cache cannot sync
// (say, RBAC without watch), it returns c unchanged. The cache stops with
// ctx.
func WithScanListCache(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, namespace string, c client.Client, log *slog.Logger) client.Client {
	scans := StartScanCache(ctx, cfg, scheme, namespace, log)
	if scans == nil {
		return c
	}
	return WithScanCache(c, scans)
}

// StartScanCache starts an informer cache of the namespace's CwacScans
// (kept current by a watch, their managed fields stripped) and waits for
// its first list: the scan list's cache, and the issue history's source of
// finished scans. It returns nil, having logged why, when the cache cannot
// sync. The cache stops with ctx.
func StartScanCache(ctx context.Context, cfg *rest.Config, scheme *runtime.Scheme, namespace string, log *slog.Logger) cache.Cache {
	scans, err := cache.New(cfg, cache.Options{
		Scheme:            scheme,
		DefaultNamespaces: map[string]cache.Config{namespace: {}},
		DefaultTransform:  cache.TransformStripManagedFields(),
	})
	if err == nil {
		_, err = scans.GetInformer(ctx, &cwacv1alpha1.CwacScan{})
	}
	if err != nil {
		log.Warn("listing scans without a cache", "err", err)
		return nil
	}
	cacheCtx, stop := context.WithCancel(ctx)
	go func() {
		defer stop()
		if err := scans.Start(cacheCtx); err != nil {
			log.Error("scan cache stopped", "err", err)
		}
	}()
	syncCtx, cancel := context.WithTimeout(cacheCtx, scanListSyncTimeout)
	defer cancel()
	if !scans.WaitForCacheSync(syncCtx) {
		stop()
		log.Warn("listing scans without a cache: it did not sync (does the MCP server's role grant watch on cwacscans?)",
			"timeout", scanListSyncTimeout)
		return nil
	}
	return scans
}

// WithScanCache returns c with its lists of CwacScans served from scans.
// When scans is an informer cache, cwac_list_scans reads its pages from an
// index the informer keeps (scanIndex).
func WithScanCache(c client.Client, scans client.Reader) client.Client {
	out := scanListClient{Client: c, cache: scans}
	if informers, ok := scans.(cache.Informers); ok {
		out.index = indexScans(informers)
	}
	return out
}

// indexScans feeds a scanIndex from the cache's CwacScan informer and waits
// until it holds every scan the cache does; nil when it cannot.
func indexScans(informers cache.Informers) *scanIndex {
	ctx, cancel := context.WithTimeout(context.Background(), scanListSyncTimeout)
	defer cancel()
	informer, err := informers.GetInformer(ctx, &cwacv1alpha1.CwacScan{})
	if err != nil {
		return nil
	}
	index := newScanIndex()
	registration, err := informer.AddEventHandler(index.handler())
	if err != nil {
		return nil
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), registration.HasSynced) {
		_ = informer.RemoveEventHandler(registration)
		return nil
	}
	return index
}

// index is the scans in cwac_list_scans' order, when they come from a
// cache that keeps one (nil otherwise).
func (st scanAccess) index() *scanIndex {
	if c, ok := st.client.(scanListClient); ok {
		return c.index
	}
	return nil
}

// ScanLister lists a namespace's CwacScans from a reader (the scan cache):
// the issue history's writer reads scans through it.
type ScanLister struct {
	Reader    client.Reader
	Namespace string
}

// List returns the namespace's scans.
func (l ScanLister) List(ctx context.Context) ([]cwacv1alpha1.CwacScan, error) {
	list := &cwacv1alpha1.CwacScanList{}
	if err := l.Reader.List(ctx, list, client.InNamespace(l.Namespace)); err != nil {
		return nil, fmt.Errorf("listing scans: %w", err)
	}
	return list.Items, nil
}

// scanListClient reads CwacScan lists from a cache and everything else
// directly; index, when set, keeps the cached scans in cwac_list_scans' order.
type scanListClient struct {
	client.Client
	cache client.Reader
	index *scanIndex
}

// List serves CwacScan lists from the cache.
func (c scanListClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*cwacv1alpha1.CwacScanList); ok {
		return c.cache.List(ctx, list, opts...)
	}
	return c.Client.List(ctx, list, opts...)
}

// scans lists the scans in the namespace.
func (st scanAccess) scans(ctx context.Context) ([]cwacv1alpha1.CwacScan, error) {
	list := &cwacv1alpha1.CwacScanList{}
	if err := st.client.List(ctx, list, client.InNamespace(st.namespace)); err != nil {
		return nil, fmt.Errorf("listing scans: %w", err)
	}
	return list.Items, nil
}

// scanResults is where a scan's results are and what is known of the scan.
type scanResults struct {
	// Dir is CWAC's results directory, relative to the results root and
	// already checked to be safe.
	Dir string
	// Status is the scan's status as the tools say it (complete, failed, …).
	Status string
	// Scan is nil for a results directory with no CwacScan (run by hand).
	Scan *cwacv1alpha1.CwacScan
}

// results finds the results directory of a finished scan. IDs naming a
// directory on the volume (scans run by hand, listed by cwac_list_scans) are
// accepted too. On error, Scan is still set when the scan exists, so a
// caller can fall back on its status.
func (st scanAccess) results(ctx context.Context, call *callInfo, id string) (scanResults, error) {
	if strings.Contains(id, "/") || isCWACDir(id) {
		return st.handRunResults(ctx, call, id)
	}
	scan, err := st.scan(ctx, call, id)
	if err != nil {
		return scanResults{}, err
	}
	res := scanResults{Status: phaseStatus(scan.Status.Phase), Scan: scan}
	if !scan.Status.Phase.Finished() {
		return res, errStillRunning
	}
	if scan.Status.ResultsPath == "" {
		return res, fmt.Errorf("Scan %s failed before CWAC wrote results: %s", scan.Name, truncate(scan.Status.Message, 512))
	}
	dir, err := resolveResultsDir(ctx, st.tree, scan.Status.ResultsPath, scanspec.AuditName(scan))
	if err != nil {
		if scan.Status.Phase == cwacv1alpha1.PhaseFailed {
			return res, fmt.Errorf("Scan %s failed and left no results: %s", scan.Name, truncate(scan.Status.Message, 512))
		}
		return res, fmt.Errorf("Results of scan %s cannot be read: %v", scan.Name, err)
	}
	res.Dir = dir
	return res, nil
}

// handRunResults resolves an ID that is a path on the results volume.
func (st scanAccess) handRunResults(ctx context.Context, call *callInfo, id string) (scanResults, error) {
	if err := resultspath.Check(id); err != nil {
		return scanResults{}, fmt.Errorf("Invalid scan_id %q: %v", truncate(id, 256), err)
	}
	call.Target = "results:" + id
	dir, err := resolveResultsDir(ctx, st.tree, id, "")
	if err != nil {
		return scanResults{}, noScanError{id}
	}
	return scanResults{Dir: dir, Status: "complete"}, nil
}

// OpenScanResults returns what opens a finished scan's results directory,
// as the tools find and read it: in the results bucket when one is given,
// else under the volume at resultsRootPath; the directory
// status.resultsPath names (or the newest of the scan's audit inside it),
// confined to it, regular files only, readable while ctx lives. The issue
// history and the dashboard read scans through it.
func OpenScanResults(resultsRootPath string, bucket *objectstore.Store) func(ctx context.Context, scan *cwacv1alpha1.CwacScan) (fs.FS, func(), error) {
	tree := newResultsTree(resultsRootPath, bucket)
	return func(ctx context.Context, scan *cwacv1alpha1.CwacScan) (fs.FS, func(), error) {
		if scan.Status.ResultsPath == "" {
			return nil, nil, fmt.Errorf("scan %s has no results directory", scan.Name)
		}
		dir, err := resolveResultsDir(ctx, tree, scan.Status.ResultsPath, scanspec.AuditName(scan))
		if err != nil {
			return nil, nil, err
		}
		return tree.sub(ctx, dir)
	}
}

func isCWACDir(id string) bool { _, _, ok := cwac.ParseResultsDirName(id); return ok }

// openResults opens a scan's results directory as a confined, read-only
// fs.FS; the caller calls the returned close function.
func (st scanAccess) openResults(ctx context.Context, res scanResults) (fs.FS, func(), error) {
	fsys, closeFn, err := st.tree.sub(ctx, res.Dir)
	if err != nil {
		return nil, nil, fmt.Errorf("Results of scan %s cannot be read: %v", scanName(res), err)
	}
	return fsys, closeFn, nil
}

// readFile reads one regular file of a results directory, refusing anything
// larger than limit: the file is written by the scan pod, which the MCP server
// does not trust with its memory.
func readFile(fsys fs.FS, name string, limit int64) ([]byte, error) {
	// fsys is a callFS: it opens without blocking and refuses anything but
	// regular files and directories; the open file's own size is checked.
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer closeReadOnly(f)
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	if info.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d this server reads", name, info.Size(), limit)
	}
	// The size may change under us: read at most one byte more than allowed.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is more than the %d bytes this server reads", name, limit)
	}
	return data, nil
}

// isRegularFile reports whether name is a regular file in fsys.
func isRegularFile(fsys fs.FS, name string) bool {
	info, err := fs.Stat(fsys, name)
	return err == nil && info.Mode().IsRegular()
}

func scanName(res scanResults) string {
	if res.Scan != nil {
		return res.Scan.Name
	}
	return res.Dir
}

// phaseStatus is a phase as the tools say it: lower case, pending when unset.
func phaseStatus(p cwacv1alpha1.Phase) string {
	if p == "" {
		return "pending"
	}
	return strings.ToLower(string(p))
}
