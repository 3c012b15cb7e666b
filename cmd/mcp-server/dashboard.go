package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/dashboard"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// dashboardFlags are the web dashboard's flags.
type dashboardFlags struct {
	enabled bool
	signIn  signInFlags
}

func (f *dashboardFlags) bind(flags *flag.FlagSet) {
	flags.BoolVar(&f.enabled, "dashboard", true, "serve the web dashboard at / of the http transport's listener "+
		"(organisations, trends, scans, issues; same authentication as MCP; see docs/dashboard.md)")
	f.signIn.bind(flags)
}

// dashboardAccess is the dashboard's Access over the MCP server's own
// authentication: the same bearer tokens (TokenReview, or the static token),
// and, with --auth=kubernetes, a SubjectAccessReview per namespace for get
// on cwacscans, as the MCP tools check, then the namespace's organisation
// grants.
type dashboardAccess struct {
	auth mcpserver.Authenticator
	// clientset reviews permissions; nil with --auth=token or none, where
	// whoever is let in reads the server's namespace.
	clientset kubernetes.Interface
	// grants are the namespace's CwacOrganisationGrants (nil: none read).
	grants mcpserver.GrantSource
}

func (a dashboardAccess) Identify(r *http.Request) (dashboard.Principal, error) {
	id, err := a.auth.Authenticate(r.Context(), r)
	switch {
	case mcpserver.IsUnauthenticated(err):
		return dashboard.Principal{}, fmt.Errorf("%w: %v", dashboard.ErrUnauthenticated, strings.TrimPrefix(err.Error(), "unauthenticated: "))
	case err != nil:
		return dashboard.Principal{}, err
	}
	return dashboard.Principal{Name: id.User, Anonymous: id.Method == "anonymous", Subject: id}, nil
}

// Reach is what the principal may read of the namespace: everything for a
// reader of its CwacScans (a SubjectAccessReview of get on cwacscans, as
// the MCP tools check), else what the namespace's CwacOrganisationGrants
// give the principal's user and groups.
func (a dashboardAccess) Reach(ctx context.Context, p dashboard.Principal, namespace string) (orgaccess.Reach, error) {
	if a.clientset == nil {
		return orgaccess.Whole(), nil
	}
	spec := authorizationv1.SubjectAccessReviewSpec{
		Extra: map[string]authorizationv1.ExtraValue{},
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: "get", Group: cwacv1alpha1.GroupVersion.Group, Resource: "cwacscans",
		},
	}
	switch id := p.Subject.(type) {
	case *mcpserver.Identity:
		if !id.Reviewable() {
			return orgaccess.Reach{}, nil
		}
		spec.User, spec.UID, spec.Groups = id.User, id.UID, id.Groups
		for k, v := range id.Extra {
			spec.Extra[k] = v
		}
	case dashboard.SessionUser:
		// Signed in with the provider: the user and groups the claim
		// mapping gave, as kube-apiserver would name them.
		spec.User, spec.Groups = id.User, id.Groups
	default:
		return orgaccess.Reach{}, nil
	}
	sar, err := a.clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		return orgaccess.Reach{}, fmt.Errorf("checking permissions: %w", err)
	}
	if sar.Status.Allowed {
		return orgaccess.Whole(), nil
	}
	if a.grants == nil {
		return orgaccess.Reach{}, nil
	}
	grants, err := a.grants.Grants(ctx)
	if err != nil {
		return orgaccess.Reach{}, err
	}
	return orgaccess.Granted(grants, spec.User, spec.Groups), nil
}

// dashboardScans is the dashboard's ScanSource: the CwacScans (through the
// server's scan cache when it synced) and their results directories
// through the MCP tools' confined access.
type dashboardScans struct {
	client client.Reader
	open   func(ctx context.Context, scan *cwacv1alpha1.CwacScan) (fs.FS, func(), error)
}

func (s dashboardScans) ListScans(ctx context.Context, namespaces []string) ([]dashboard.ScanInfo, error) {
	var out []dashboard.ScanInfo
	for _, ns := range namespaces {
		list := &cwacv1alpha1.CwacScanList{}
		if err := s.client.List(ctx, list, client.InNamespace(ns)); err != nil {
			return nil, fmt.Errorf("listing scans in %s: %w", ns, err)
		}
		for i := range list.Items {
			out = append(out, scanInfo(&list.Items[i]))
		}
	}
	slices.SortStableFunc(out, func(a, b dashboard.ScanInfo) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	return out, nil
}

func (s dashboardScans) get(ctx context.Context, namespace, name string) (*cwacv1alpha1.CwacScan, error) {
	scan := &cwacv1alpha1.CwacScan{}
	err := s.client.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, scan)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%s/%s: %w", namespace, name, dashboard.ErrScanNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading scan %s/%s: %w", namespace, name, err)
	}
	return scan, nil
}

func (s dashboardScans) GetScan(ctx context.Context, namespace, name string) (dashboard.ScanInfo, error) {
	scan, err := s.get(ctx, namespace, name)
	if err != nil {
		return dashboard.ScanInfo{}, err
	}
	return scanInfo(scan), nil
}

func (s dashboardScans) OpenResults(ctx context.Context, namespace, name string) (fs.FS, func(), error) {
	scan, err := s.get(ctx, namespace, name)
	if err != nil {
		return nil, nil, err
	}
	if scan.Status.ResultsPath == "" {
		return nil, nil, fmt.Errorf("%s/%s: %w", namespace, name, dashboard.ErrNoResults)
	}
	fsys, done, err := s.open(ctx, scan)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s/%s: %w", namespace, name, dashboard.ErrNoResults)
	}
	return fsys, done, err
}

// scanInfo is what the dashboard shows of a CwacScan.
func scanInfo(scan *cwacv1alpha1.CwacScan) dashboard.ScanInfo {
	st := scan.Status
	info := dashboard.ScanInfo{
		Namespace: scan.Namespace, Name: scan.Name, UID: string(scan.UID), Schedule: scan.Labels[cwacv1alpha1.LabelSchedule], Phase: string(st.Phase),
		Created: scan.CreationTimestamp.Time, Message: st.Message, Baseline: scan.Spec.Baseline, ResultsPath: st.ResultsPath,
	}
	if info.Phase == "" {
		info.Phase = "Pending"
	}
	if st.CompletionTime != nil {
		t := st.CompletionTime.Time
		info.Finished = &t
	}
	if f := st.Failure; f != nil {
		info.Failure = &dashboard.ScanFailure{Reason: f.Reason, ExitCode: f.ExitCode, Cause: f.Cause, LogTail: f.LogTail}
	}
	if sum := st.Summary; sum != nil {
		info.Summary = &dashboard.ScanSummary{Pages: sum.PagesScanned, URLs: sum.UrlsScanned, Issues: sum.TotalIssues,
			ByImpact: sum.IssuesByImpact, UnscannedBaseURLs: sum.UnscannedBaseURLs, DurationSeconds: sum.DurationSeconds}
		if d := sum.Diff; d != nil {
			diff := &dashboard.ScanDiff{Baseline: d.Baseline, New: d.New, Fixed: d.Fixed, Unchanged: d.Unchanged, Unstable: d.Unstable,
				PagesAdded: d.PagesAdded, PagesRemoved: d.PagesRemoved, NewOnAddedPages: d.NewOnAddedPages, FixedOnRemovedPages: d.FixedOnRemovedPages}
			for _, o := range d.ByOrganisation {
				diff.ByOrganisation = append(diff.ByOrganisation,
					dashboard.OrganisationDiff{Organisation: o.Organisation, New: o.New, Fixed: o.Fixed, Unchanged: o.Unchanged, NewByImpact: o.NewByImpact})
			}
			info.Summary.Diff = diff
		}
	}
	return info
}

// dashboardTimeout bounds one dashboard request's reads.
const dashboardTimeout = 30 * time.Second

// withTimeout bounds every dashboard request but a file download (which
// streams for as long as the file takes): a slow store or API server
// answers with a 503 page rather than holding the connection.
func withTimeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/files/") {
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), dashboardTimeout)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// newDashboard builds the dashboard for the http transport (nil when
// --dashboard=false).
func newDashboard(f dashboardFlags, deps dashboardDeps) (http.Handler, error) {
	if err := f.signIn.check(f.enabled, authModeOf(deps.auth)); err != nil {
		return nil, err
	}
	if !f.enabled {
		return nil, nil //nolint:nilnil // no dashboard is not an error
	}
	access := dashboardAccess{auth: deps.auth, grants: deps.grants}
	if _, ok := deps.auth.(*mcpserver.KubernetesAuth); ok {
		access.clientset = deps.clientset // else --auth=token or none: no reviews
	}
	signIn, err := f.signIn.build()
	if err != nil {
		return nil, err
	}
	if signIn != nil {
		discoverAtStart(signIn, deps)
	}
	opts := dashboard.Options{
		Store: deps.store, Access: access, Namespaces: []string{deps.namespace}, Log: deps.log,
		Scans:  dashboardScans{client: deps.client, open: mcpserver.OpenScanResults(deps.resultsRoot, deps.bucket)},
		SignIn: signIn, PublicNamespaces: urlpolicy.SplitList(f.signIn.publicNamespaces),
	}
	if deps.cache != nil {
		opts.Owners = dashboardOwners{cache: deps.cache}
	}
	if deps.decisions != nil && deps.writer != nil && deps.clientset != nil {
		opts.Decisions = dashboardDecisions{source: deps.decisions, client: deps.writer, clientset: deps.clientset}
	}
	h, err := dashboard.New(opts)
	if err != nil {
		return nil, err
	}
	return withTimeout(h), nil
}

// dashboardHandler is newDashboard for main: a failure ends the process.
func dashboardHandler(f dashboardFlags, deps dashboardDeps, fail func(string, error)) http.Handler {
	h, err := newDashboard(f, deps)
	if err != nil {
		fail("creating the dashboard", err)
	}
	return h
}

// dashboardDeps are what the dashboard shares with the MCP server.
type dashboardDeps struct {
	auth      mcpserver.Authenticator
	clientset kubernetes.Interface
	client    client.Reader
	grants    mcpserver.GrantSource
	// decisions are the namespace's CwacIssueDecisions (nil: not read),
	// and writer makes them (the server's own client).
	decisions *mcpserver.DecisionSource
	writer    client.Writer
	// cache is the server's informer cache (nil when it did not sync):
	// the owners come from its schedules and scans.
	cache       client.Reader
	store       *store.Handle
	namespace   string
	resultsRoot string
	bucket      *objectstore.Store // where results are read, when set (not resultsRoot)
	log         *slog.Logger
}
