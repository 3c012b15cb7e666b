package controller

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// scanListPage is how many CwacScans the cache's list asks for at once.
// A page of finished scans decoded whole is about 6 MiB at 100 (a scan of
// 40 sites with its summary and diff is some 60 KiB decoded).
const scanListPage = 100

// NewInformer is the manager's cache's informer constructor
// (cache.Options.NewInformer): client-go's, but the CwacScan informer lists
// page by page and slims each page (slimFinishedScans) before it asks for
// the next.
//
// Why: without it, the informer's first list (and any relist) holds every
// scan whole at once before the cache's transform slims them. With 10,000
// finished scans that was some 660 MiB of decoded objects: the Go heap fell
// back to 19 MiB once the list was slimmed, but the resident memory stayed
// at 170 MiB (the freed pages were interleaved with the slimmed scans
// allocated among them, and Go returns only whole free pages). An API
// server that streams the first list (client-go's WatchListClient, which
// an etcd without progress notifications cannot serve) slims scans one by
// one anyway: this makes the list path as flat.
func NewInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	return toolscache.NewSharedIndexInformer(informerLister(lw, obj), obj, resync, indexers)
}

// informerLister is the lister of obj's informer: the CwacScan's lists in
// pages, every other as lw does.
func informerLister(lw toolscache.ListerWatcher, obj runtime.Object) toolscache.ListerWatcher {
	if _, ok := obj.(*cwacv1alpha1.CwacScan); ok {
		return &pagedSlimList{ListerWatcherWithContext: toolscache.ToListerWatcherWithContext(lw), page: scanListPage, slim: slimFinishedScans}
	}
	return lw
}

// pagedSlimList lists in pages of page objects, each passed through slim
// as it arrives, and answers with one list holding them all: the pager of
// the reflector above sees a single page. Watches pass through.
type pagedSlimList struct {
	toolscache.ListerWatcherWithContext
	page int64
	slim toolscache.TransformFunc
}

// ListWithContext lists every page. A list at resourceVersion "0" (any
// version: the informer's first) is asked at "" (the latest) instead,
// since an API server's watch cache answers "0" whole, ignoring the limit;
// the latest is as good an answer to "any". The pages of one list are one
// snapshot (the API server's continue tokens): the answer has its version.
func (l *pagedSlimList) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if opts.ResourceVersion == "0" {
		opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
	}
	if opts.Limit <= 0 || opts.Limit > l.page {
		opts.Limit = l.page
	}
	out := &metav1.List{}
	for {
		page, err := l.ListerWatcherWithContext.ListWithContext(ctx, opts)
		if err != nil {
			return nil, err
		}
		items, err := meta.ExtractList(page)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			slim, err := l.slim(item)
			if err != nil {
				return nil, err
			}
			o, ok := slim.(runtime.Object)
			if !ok {
				return nil, fmt.Errorf("listing in pages: the transform made a %T of a %T", slim, item)
			}
			if o == item {
				// An unfinished scan, kept whole: a copy, so that the
				// page it points into can go.
				o = o.DeepCopyObject()
			}
			out.Items = append(out.Items, runtime.RawExtension{Object: o})
		}
		lm, err := meta.ListAccessor(page)
		if err != nil {
			return nil, err
		}
		out.ResourceVersion = lm.GetResourceVersion()
		if lm.GetContinue() == "" {
			return out, nil
		}
		// A continued list names no version: the token holds it.
		opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = lm.GetContinue(), "", ""
	}
}

// List is ListWithContext without a context (client-go's older interface).
func (l *pagedSlimList) List(opts metav1.ListOptions) (runtime.Object, error) {
	return l.ListWithContext(context.Background(), opts)
}

// Watch is WatchWithContext without a context (client-go's older interface).
func (l *pagedSlimList) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return l.WatchWithContext(context.Background(), opts)
}
