package mcpserver

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	toolscache "k8s.io/client-go/tools/cache"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// grantChanges writes the audit trail's record of every change to the
// namespace's CwacOrganisationGrants, as the informer sees it: what
// changed (the grant, its subjects and organisations, before and after),
// who (the annotation the chart's MutatingAdmissionPolicy sets from the
// request's own user) and when (a creation's time, or when the server saw
// the change). Grants that exist when the server starts
// are not changes.
type grantChanges struct{ log *slog.Logger }

// maxGrantRecordList bounds each list a record names (a grant may name
// 256 organisations of 1,000 bytes).
const maxGrantRecordList = 2048

// The changes a record names.
const (
	grantCreated = "created"
	grantChanged = "changed"
	grantDeleted = "deleted"
)

// notRecorded stands for a change's author when no policy recorded them.
const notRecorded = "not recorded (install the chart's MutatingAdmissionPolicy: Kubernetes 1.36 or later)"

func (g grantChanges) handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			if !initial {
				g.record(grantCreated, nil, obj)
			}
		},
		UpdateFunc: func(old, obj any) {
			o, n := asGrant(old), asGrant(obj)
			if o == nil || n == nil || o.ResourceVersion == n.ResourceVersion {
				return // a resync, not a change
			}
			g.record(grantChanged, o, n)
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			g.record(grantDeleted, nil, obj)
		},
	}
}

func asGrant(obj any) *cwacv1alpha1.CwacOrganisationGrant {
	g, _ := obj.(*cwacv1alpha1.CwacOrganisationGrant)
	return g
}

// record writes one change.
func (g grantChanges) record(change string, before *cwacv1alpha1.CwacOrganisationGrant, obj any) {
	grant := asGrant(obj)
	if grant == nil {
		return
	}
	who := grant.Annotations[cwacv1alpha1.AnnotationGrantChangedBy]
	switch {
	case change == grantDeleted && who != "":
		who = "not recorded for a deletion (see the API server's audit log); last changed by " + who
	case change == grantDeleted:
		who = "not recorded for a deletion (see the API server's audit log)"
	case who == "":
		who = notRecorded
	}
	// A creation's time is on the object; a change's is when the server
	// saw it (the cache strips the managed fields that would date it).
	at := time.Now()
	if change == grantCreated && !grant.CreationTimestamp.IsZero() {
		at = grant.CreationTimestamp.Time
	}
	attrs := []any{"audit", true, "change", change, "namespace", grant.Namespace, "grant", grant.Name,
		"changed_by", textcap.Head(who, 512), "at", at.UTC().Format(time.RFC3339)}
	attrs = append(attrs, grantAttrs("", &grant.Spec)...)
	if before != nil {
		attrs = append(attrs, grantAttrs("before_", &before.Spec)...)
	}
	g.log.Info("organisation grant "+change, attrs...)
}

// grantAttrs are a grant's spec as a record's fields, each list bounded.
func grantAttrs(prefix string, spec *cwacv1alpha1.CwacOrganisationGrantSpec) []any {
	subjects := make([]string, len(spec.Subjects))
	for i, s := range spec.Subjects {
		subjects[i] = fmt.Sprintf("%s:%s", s.Kind, s.Name)
	}
	list := func(v []string) string {
		return textcap.HeadMarked(strings.Join(v, ", "), maxGrantRecordList, truncatedMark)
	}
	return []any{prefix + "subjects", list(subjects), prefix + "organisations", list(spec.Organisations),
		prefix + "sectors", list(spec.Sectors), prefix + "other_organisations", string(spec.OtherOrganisations)}
}
