//go:build integration

package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/testutil/admissionpolicy"
	"github.com/a11y-dev/cwac-operator/internal/testutil/rbacwait"
)

// TestGrantChangesRecorded: with the chart's MutatingAdmissionPolicy, every
// created, changed and deleted grant is a record of the audit trail
// naming who (the request's own user, whatever the request wrote in the
// annotation), what (before and after) and when.
func TestGrantChangesRecorded(t *testing.T) {
	h := newHarness(t)
	admissionpolicy.Install(t, k8s, "grant_changed_by", h.ns, nil)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	audit := &syncBuffer{}
	scans := StartScanCache(ctx, cfg, scheme, h.ns, slog.New(slog.DiscardHandler))
	if WatchGrants(ctx, scans, h.ns, slog.New(slog.NewJSONHandler(audit, nil))) == nil {
		t.Fatal("the grants are not watched")
	}

	team, admin := grantTeam(t, h.ns)

	// Created with a forged author: the policy writes the real one. The
	// policy takes effect shortly after it is created.
	grant := &cwacv1alpha1.CwacOrganisationGrant{}
	deadline := time.Now().Add(60 * time.Second)
	for {
		grant = &cwacv1alpha1.CwacOrganisationGrant{ObjectMeta: metav1.ObjectMeta{Name: "health", Namespace: h.ns,
			Annotations: map[string]string{cwacv1alpha1.AnnotationGrantChangedBy: "someone-else"}},
			Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
				Subjects:      []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectGroup, Name: "oidc:health-web"}},
				Organisations: []string{"Ministry of Health"}}}
		err := team.Create(ctx, grant)
		if apierrors.IsServiceUnavailable(err) && time.Now().Before(deadline) {
			// The policy types its mutation against the CRD's schema, which
			// the API server publishes a moment after the CRD is created.
			time.Sleep(200 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if grant.Annotations[cwacv1alpha1.AnnotationGrantChangedBy] == admin {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the policy did not record the author: %v", grant.Annotations)
		}
		if err := team.Delete(ctx, grant); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	grant.Spec.Organisations = append(grant.Spec.Organisations, "Ministry of Education")
	if err := team.Update(ctx, grant); err != nil {
		t.Fatal(err)
	}
	if got := grant.Annotations[cwacv1alpha1.AnnotationGrantChangedBy]; got != admin {
		t.Errorf("after an update the author is %q, want %q", got, admin)
	}
	if err := team.Delete(ctx, grant); err != nil {
		t.Fatal(err)
	}

	records := waitGrantRecords(t, audit, "health")
	created, changed, deleted := records["created"], records["changed"], records["deleted"]
	if created == nil || changed == nil || deleted == nil {
		t.Fatalf("records %v in:\n%s", records, audit.String())
	}
	if created["changed_by"] != admin || created["organisations"] != "Ministry of Health" || created["subjects"] != "Group:oidc:health-web" ||
		created["namespace"] != h.ns || created["at"] == "" {
		t.Errorf("created: %v", created)
	}
	if changed["changed_by"] != admin || changed["organisations"] != "Ministry of Health, Ministry of Education" ||
		changed["before_organisations"] != "Ministry of Health" {
		t.Errorf("changed: %v", changed)
	}
	if by, _ := deleted["changed_by"].(string); !strings.Contains(by, "audit log") || !strings.Contains(by, admin) {
		t.Errorf("deleted: %v", deleted)
	}
}

// grantTeam is a client acting as the central team's account, which may
// change grants in ns and nothing else, and that account's user name.
func grantTeam(t *testing.T, ns string) (client.Client, string) {
	t.Helper()
	ctx := context.Background()
	// The central team's account may change grants, and nothing else.
	if err := k8s.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "grant-admin", Namespace: ns},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"cwac.a11y.dev"}, Resources: []string{"cwacorganisationgrants"},
			Verbs: []string{"get", "create", "update", "delete"}}}}); err != nil {
		t.Fatal(err)
	}
	admin := "system:serviceaccount:" + ns + ":grant-admin"
	if err := k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "grant-admin", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "grant-admin"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: admin}}}); err != nil {
		t.Fatal(err)
	}
	// The CRD is installed by the suite; its kind may take a moment to be served.
	for i := 0; ; i++ {
		if err := k8s.List(ctx, &cwacv1alpha1.CwacOrganisationGrantList{}, client.InNamespace(ns)); err == nil {
			break
		} else if i == 100 {
			t.Fatalf("grants are not served: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rbacwait.Allowed(t, k8s, admin, ns, "create", "cwacorganisationgrants")
	as := rest.CopyConfig(cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: admin}
	team, err := client.New(as, client.Options{Scheme: scheme, Mapper: k8s.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}

	return team, admin
}

// waitGrantRecords waits for a created, a changed and a deleted record of
// the grant in the audit trail, and returns the last of each.
func waitGrantRecords(t *testing.T, audit *syncBuffer, grant string) map[string]map[string]any {
	t.Helper()
	var records map[string]map[string]any
	for range 200 {
		records = map[string]map[string]any{}
		for _, line := range strings.Split(audit.String(), "\n") {
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["audit"] == true && rec["grant"] == grant {
				if rec["change"] == grantCreated {
					clear(records) // a later life of the grant: earlier records are of another
				}
				records[rec["change"].(string)] = rec
			}
		}
		if len(records) == 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return records
}
