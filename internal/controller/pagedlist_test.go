package controller

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	toolscache "k8s.io/client-go/tools/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

// pagesServer answers lists of n scans (every third unfinished) in pages
// as an API server does, and records what it was asked.
type pagesServer struct {
	n     int
	asked []metav1.ListOptions
	pages []*cwacv1alpha1.CwacScanList
}

func (p *pagesServer) list(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	p.asked = append(p.asked, opts)
	from := 0
	if opts.Continue != "" {
		var err error
		if from, err = strconv.Atoi(opts.Continue); err != nil {
			return nil, err
		}
	}
	to := p.n
	if opts.Limit > 0 {
		to = min(p.n, from+int(opts.Limit))
	}
	page := &cwacv1alpha1.CwacScanList{ListMeta: metav1.ListMeta{ResourceVersion: "77"}}
	for i := from; i < to; i++ {
		s := wholeScan(cwacv1alpha1.PhaseComplete)
		if i%3 == 0 {
			s = wholeScan(cwacv1alpha1.PhaseRunning)
		}
		s.Name = fmt.Sprintf("scan-%03d", i)
		page.Items = append(page.Items, *s)
	}
	if to < p.n {
		page.Continue = strconv.Itoa(to)
	}
	p.pages = append(p.pages, page)
	return page, nil
}

// TestPagedSlimList: the CwacScan informer's list comes in pages of
// scanListPage, each slimmed before the next is asked for, at the latest
// version when the informer asks for any ("0"), and answers one list of
// every scan at the snapshot's version; unfinished scans are copies, not
// pointers into a page.
func TestPagedSlimList(t *testing.T) {
	cases := []struct {
		name      string
		n         int
		opts      metav1.ListOptions
		wantPages int
		wantLimit int64
		wantRV    string
	}{
		{"first list, any version", 250, metav1.ListOptions{ResourceVersion: "0"}, 3, scanListPage, ""},
		{"relist at a version", 250, metav1.ListOptions{ResourceVersion: "12"}, 3, scanListPage, "12"},
		{"the reflector's own pager's limit, larger", 250, metav1.ListOptions{Limit: 500}, 3, scanListPage, ""},
		{"a smaller limit is kept", 25, metav1.ListOptions{Limit: 10}, 3, 10, ""},
		{"exactly one page", scanListPage, metav1.ListOptions{}, 1, scanListPage, ""},
		{"no scans", 0, metav1.ListOptions{}, 1, scanListPage, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			server := &pagesServer{n: c.n}
			l := &pagedSlimList{
				ListerWatcherWithContext: &toolscache.ListWatch{ListWithContextFunc: server.list},
				page:                     scanListPage, slim: slimFinishedScans,
			}
			got, err := l.ListWithContext(context.Background(), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(server.asked) != c.wantPages {
				t.Fatalf("%d requests, want %d", len(server.asked), c.wantPages)
			}
			for i, o := range server.asked {
				wantRV, wantCont := c.wantRV, ""
				if i > 0 {
					wantRV, wantCont = "", strconv.Itoa(i*int(c.wantLimit))
				}
				if o.Limit != c.wantLimit || o.ResourceVersion != wantRV || o.Continue != wantCont {
					t.Errorf("request %d: limit %d rv %q continue %q, want %d %q %q", i, o.Limit, o.ResourceVersion, o.Continue, c.wantLimit, wantRV, wantCont)
				}
			}
			items, err := meta.ExtractList(got)
			if err != nil {
				t.Fatal(err)
			}
			if lm, _ := meta.ListAccessor(got); lm.GetResourceVersion() != "77" || lm.GetContinue() != "" {
				t.Errorf("answered at %q continuing %q", lm.GetResourceVersion(), lm.GetContinue())
			}
			if len(items) != c.n {
				t.Fatalf("%d items, want %d", len(items), c.n)
			}
			for i, item := range items {
				name := fmt.Sprintf("scan-%03d", i)
				switch o := item.(type) {
				case *finishedScan:
					if i%3 == 0 || o.GetName() != name {
						t.Errorf("item %d: %s slimmed", i, o.GetName())
					}
				case *cwacv1alpha1.CwacScan:
					if i%3 != 0 || o.Name != name || o.ManagedFields != nil {
						t.Errorf("item %d: %s kept whole (managed fields %v)", i, o.Name, o.ManagedFields)
					}
					page := server.pages[i/int(c.wantLimit)]
					if o == &page.Items[i%int(c.wantLimit)] {
						t.Errorf("item %d points into its page", i)
					}
				default:
					t.Errorf("item %d: a %T", i, item)
				}
			}
		})
	}
}

// TestPagedSlimListErrors: a page's error is the list's, and a transform
// that makes no object is refused.
func TestPagedSlimListErrors(t *testing.T) {
	fail := &toolscache.ListWatch{ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
		return nil, fmt.Errorf("the API server is away")
	}}
	if _, err := (&pagedSlimList{ListerWatcherWithContext: fail, page: 10, slim: slimFinishedScans}).List(metav1.ListOptions{}); err == nil {
		t.Error("a failed page made a list")
	}
	server := &pagesServer{n: 3}
	bad := &pagedSlimList{ListerWatcherWithContext: &toolscache.ListWatch{ListWithContextFunc: server.list}, page: 10,
		slim: func(any) (any, error) { return "not an object", nil }}
	if _, err := bad.List(metav1.ListOptions{}); err == nil {
		t.Error("a transform's non-object was listed")
	}
	w := watch.NewFake()
	watching := &pagedSlimList{ListerWatcherWithContext: &toolscache.ListWatch{
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil }}}
	if got, err := watching.Watch(metav1.ListOptions{}); err != nil || got != w {
		t.Errorf("the watch did not pass through: %v %v", got, err)
	}
}

// TestNewInformerPagesScansOnly: only the CwacScan informer lists in pages.
func TestNewInformerPagesScansOnly(t *testing.T) {
	lw := &toolscache.ListWatch{}
	if _, paged := informerLister(lw, &cwacv1alpha1.CwacScan{}).(*pagedSlimList); !paged {
		t.Error("the CwacScan informer lists whole")
	}
	if got := informerLister(lw, &cwacv1alpha1.CwacScanSchedule{}); got != toolscache.ListerWatcher(lw) {
		t.Errorf("the schedules' informer lists through a %T", got)
	}
	if NewInformer(lw, &cwacv1alpha1.CwacScan{}, 0, toolscache.Indexers{}) == nil {
		t.Error("no informer")
	}
}
