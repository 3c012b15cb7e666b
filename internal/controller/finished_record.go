package controller

import (
	"fmt"
	"strings"
	"time"
	"unique"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// finishedScan is what the manager's cache holds of a finished CwacScan:
// the fields finished_cache.go lists, in about a third of the memory of a
// CwacScan holding the same (whose empty fields alone take 640 bytes). The
// cache keeps one per finished scan for as long as the scan exists, so this
// is what the operator's memory grows by with history.
//
// It is never handed out as it is: reading the cache (Get, List) makes a
// deep copy, and a finishedScan's deep copy is the CwacScan it stands for
// (scan), so the operator's code reads CwacScans whatever the cache holds.
// Event handlers and index functions, which see the cached object itself,
// read it through scanOf. Its setters panic: nothing changes a cached
// object.
type finishedScan struct {
	// text holds the scan's own strings end to end (one allocation, not
	// six): its name, uid, resourceVersion, jobName, resultsPath and the
	// annotation AnnotationScheduledTime, each ending at its ends entry.
	// What can be made again from the rest is left out: the uid when it is
	// a UUID (kept in uid, 16 bytes where its text takes 36), jobName when
	// it is the name scanspec.JobName gives the scan (every Job the
	// operator made), and resultsPath's scan directory (when it is the one
	// scanspec.ScanDir names) and audit name (when it is the one
	// cwac.AuditNameFrom makes of the scan's name).
	text string
	ends [textFields]uint16
	// Strings many scans share, interned: reason is status.failure's.
	namespace, phase, resultsPolicy, reason unique.Handle[string]
	uid                                     [16]byte // when has says hasBinaryUID
	generation, observed                    int64
	created, started, completed             int64 // Unix nanoseconds; started and completed only when has says so
	pages                                   int32 // status.summary.pagesScanned
	ttl, shards                             int32
	has                                     presence
	// owner is the first owner reference (a schedule's scans have one);
	// any more are in rare.
	owner unique.Handle[ownerRef]
	rare  *finishedRare
}

// The fields of finishedScan.text, in order.
const (
	textName = iota
	textUID
	textResourceVersion
	textJobName
	textResultsPath
	textScheduledTime
	textFields
)

// field is one of f.text's fields.
func (f *finishedScan) field(i int) string {
	start := uint16(0)
	if i > 0 {
		start = f.ends[i-1]
	}
	return f.text[start:f.ends[i]]
}

// presence says which optional fields a finishedScan holds.
type presence uint16

const (
	hasStarted presence = 1 << iota
	hasCompleted
	hasDeleted
	hasTTL
	hasSummary
	hasFailure
	hasScheduledTime
	hasJobName
	hasBinaryUID
	hasOwner
	hasResultsInScanDir   // text holds resultsPath past its scan directory
	hasDefaultAuditSuffix // text's resultsPath leaves out "_" and the default audit name
)

// maxRecordText bounds a finishedScan's text, so its ends fit in uint16. A
// scan's strings are a few hundred bytes; one past this (a resultsPath a
// scan pod could make long) is not slimmed.
const maxRecordText = 1<<16 - 1

// finishedRare holds what few finished scans have: a scan being deleted,
// cancelled, holding a finalizer or notifications not yet settled.
type finishedRare struct {
	deleted       int64                     // Unix nanoseconds, when has says hasDeleted
	owners        []unique.Handle[ownerRef] // past the first
	grace         *int64
	cancel        *string
	finalizers    []string
	notifications *cwacv1alpha1.Notifications
	notified      *cwacv1alpha1.NotificationStatus
}

// ownerRef is an owner reference in a form unique.Make can share: all
// scans of one schedule hold one copy.
type ownerRef struct {
	apiVersion, kind, name string
	uid                    types.UID
	controller, block      int8 // 0 unset, 1 false, 2 true
}

func boolCode(b *bool) int8 {
	switch {
	case b == nil:
		return 0
	case *b:
		return 2
	default:
		return 1
	}
}

func codeBool(c int8) *bool {
	if c == 0 {
		return nil
	}
	b := c == 2
	return &b
}

// compactScan is the finishedScan of a finished scan, or nil when its
// strings are too long to hold in one (the cache then keeps the scan).
// Strings many scans share (namespace, phase, reasons, owners) are
// interned.
func compactScan(s *cwacv1alpha1.CwacScan) *finishedScan {
	f := &finishedScan{
		namespace: unique.Make(s.Namespace), phase: unique.Make(string(s.Status.Phase)), resultsPolicy: unique.Make(string(s.Spec.ResultsPolicy)),
		generation: s.Generation, observed: s.Status.ObservedGeneration, created: s.CreationTimestamp.UnixNano(), shards: s.Spec.Shards,
	}
	if s.CreationTimestamp.IsZero() {
		f.created = 0
	}
	text := f.keepText(s)
	if t := s.Status.StartTime; t != nil {
		f.started, f.has = t.UnixNano(), f.has|hasStarted
	}
	if t := s.Status.CompletionTime; t != nil {
		f.completed, f.has = t.UnixNano(), f.has|hasCompleted
	}
	if s.Spec.TTLSecondsAfterFinished != nil {
		f.ttl, f.has = *s.Spec.TTLSecondsAfterFinished, f.has|hasTTL
	}
	if s.Status.Summary != nil {
		f.pages, f.has = s.Status.Summary.PagesScanned, f.has|hasSummary
	}
	if s.Status.Failure != nil {
		f.reason, f.has = unique.Make(s.Status.Failure.Reason), f.has|hasFailure
	}
	size := 0
	for _, t := range text {
		size += len(t)
	}
	if size > maxRecordText {
		return nil
	}
	var all strings.Builder
	all.Grow(size) // exactly: no spare capacity kept for as long as the scan
	for i, t := range text {
		all.WriteString(t)
		f.ends[i] = uint16(all.Len())
	}
	f.text = all.String()
	rare := &finishedRare{grace: s.DeletionGracePeriodSeconds}
	if t := s.DeletionTimestamp; t != nil {
		rare.deleted, f.has = t.UnixNano(), f.has|hasDeleted
	}
	for i, ref := range s.OwnerReferences {
		h := unique.Make(ownerRef{apiVersion: ref.APIVersion, kind: ref.Kind, name: ref.Name, uid: ref.UID,
			controller: boolCode(ref.Controller), block: boolCode(ref.BlockOwnerDeletion)})
		if i == 0 {
			f.owner, f.has = h, f.has|hasOwner
		} else {
			rare.owners = append(rare.owners, h)
		}
	}
	if v, ok := s.Annotations[cwacv1alpha1.AnnotationCancel]; ok {
		rare.cancel = &v
	}
	for _, fin := range s.Finalizers {
		rare.finalizers = append(rare.finalizers, intern(fin))
	}
	// The notification controller picks the scans whose notifications are
	// not settled; once they are, the cache keeps none of them.
	if s.NotificationsPending() {
		rare.notifications, rare.notified = s.Spec.Notifications, s.Status.Notifications
	}
	if f.has&hasDeleted != 0 || rare.owners != nil || rare.grace != nil || rare.cancel != nil || rare.finalizers != nil ||
		rare.notifications != nil || rare.notified != nil {
		f.rare = rare
	}
	return f
}

// keepText is what f keeps of s's own strings, each in text's order,
// leaving out what can be made again from the rest (see text).
func (f *finishedScan) keepText(s *cwacv1alpha1.CwacScan) (text [textFields]string) {
	text[textName], text[textResourceVersion] = s.Name, s.ResourceVersion
	if u, err := uuid.Parse(string(s.UID)); err == nil && u.String() == string(s.UID) {
		f.uid, f.has = u, f.has|hasBinaryUID
	} else {
		text[textUID] = string(s.UID)
	}
	text[textResultsPath] = s.Status.ResultsPath
	if rel, ok := strings.CutPrefix(s.Status.ResultsPath, scanspec.ScanDir(s)+"/"); ok && rel != "" {
		text[textResultsPath], f.has = rel, f.has|hasResultsInScanDir
		if short, ok := strings.CutSuffix(rel, "_"+cwac.AuditNameFrom(s.Name)); ok && short != "" {
			text[textResultsPath], f.has = short, f.has|hasDefaultAuditSuffix
		}
	}
	if s.Status.JobName != scanspec.JobName(s) {
		text[textJobName], f.has = s.Status.JobName, f.has|hasJobName
	}
	if v, ok := s.Annotations[cwacv1alpha1.AnnotationScheduledTime]; ok {
		text[textScheduledTime], f.has = v, f.has|hasScheduledTime
	}
	return text
}

// scan is the CwacScan f stands for: what the cache kept of it, every
// other field empty. Each call makes a new one, sharing nothing mutable
// with f.
func (f *finishedScan) scan() *cwacv1alpha1.CwacScan {
	s := &cwacv1alpha1.CwacScan{
		TypeMeta: metav1.TypeMeta{APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: scanKind},
		ObjectMeta: metav1.ObjectMeta{
			Name: f.field(textName), Namespace: f.namespace.Value(), UID: f.GetUID(),
			ResourceVersion: f.field(textResourceVersion), Generation: f.generation,
		},
		Spec: cwacv1alpha1.CwacScanSpec{ResultsPolicy: cwacv1alpha1.ResultsPolicy(f.resultsPolicy.Value()), Shards: f.shards},
		Status: cwacv1alpha1.CwacScanStatus{
			Phase: cwacv1alpha1.Phase(f.phase.Value()), ObservedGeneration: f.observed, ResultsPath: f.field(textResultsPath),
		},
	}
	if f.has&hasDefaultAuditSuffix != 0 {
		s.Status.ResultsPath += "_" + cwac.AuditNameFrom(s.Name)
	}
	if f.has&hasResultsInScanDir != 0 {
		s.Status.ResultsPath = scanspec.ScanDir(s) + "/" + s.Status.ResultsPath
	}
	if f.created != 0 {
		s.CreationTimestamp = unixNano(f.created)
	}
	at := func(flag presence, ns int64) *metav1.Time {
		if f.has&flag == 0 {
			return nil
		}
		t := unixNano(ns)
		return &t
	}
	s.Status.StartTime, s.Status.CompletionTime = at(hasStarted, f.started), at(hasCompleted, f.completed)
	if f.has&hasTTL != 0 {
		ttl := f.ttl
		s.Spec.TTLSecondsAfterFinished = &ttl
	}
	if f.has&hasSummary != 0 {
		s.Status.Summary = &cwacv1alpha1.ScanSummary{PagesScanned: f.pages}
	}
	if f.has&hasFailure != 0 {
		s.Status.Failure = &cwacv1alpha1.ScanFailure{Reason: f.reason.Value()}
	}
	if f.has&hasScheduledTime != 0 {
		s.Annotations = map[string]string{cwacv1alpha1.AnnotationScheduledTime: f.field(textScheduledTime)}
	}
	owner := func(h unique.Handle[ownerRef]) metav1.OwnerReference {
		o := h.Value()
		return metav1.OwnerReference{APIVersion: o.apiVersion, Kind: o.kind, Name: o.name, UID: o.uid,
			Controller: codeBool(o.controller), BlockOwnerDeletion: codeBool(o.block)}
	}
	if f.has&hasOwner != 0 {
		s.OwnerReferences = append(s.OwnerReferences, owner(f.owner))
	}
	if r := f.rare; r != nil {
		s.DeletionTimestamp = at(hasDeleted, r.deleted)
		for _, h := range r.owners {
			s.OwnerReferences = append(s.OwnerReferences, owner(h))
		}
		if r.grace != nil {
			g := *r.grace
			s.DeletionGracePeriodSeconds = &g
		}
		if r.cancel != nil {
			if s.Annotations == nil {
				s.Annotations = map[string]string{}
			}
			s.Annotations[cwacv1alpha1.AnnotationCancel] = *r.cancel
		}
		s.Finalizers = append([]string(nil), r.finalizers...)
		s.Spec.Notifications, s.Status.Notifications = r.notifications.DeepCopy(), r.notified.DeepCopy()
	}
	if f.has&hasJobName != 0 {
		s.Status.JobName = f.field(textJobName)
	} else {
		s.Status.JobName = scanspec.JobName(s)
	}
	return s
}

// unixNano is a time read from the cache: local, as the API's are decoded.
func unixNano(ns int64) metav1.Time { return metav1.NewTime(time.Unix(0, ns)) }

// scanKind is the CwacScan's kind.
const scanKind = "CwacScan"

// scanOf is the CwacScan a cached object is: itself, or a finishedScan's
// CwacScan (a new one each call).
func scanOf(o any) (*cwacv1alpha1.CwacScan, bool) {
	switch s := o.(type) {
	case *cwacv1alpha1.CwacScan:
		return s, s != nil
	case *finishedScan:
		if s == nil {
			return nil, false
		}
		return s.scan(), true
	default:
		return nil, false
	}
}

// DeepCopyObject is the CwacScan f stands for: what the cache's readers
// return for it.
func (f *finishedScan) DeepCopyObject() runtime.Object { return f.scan() }

// GetObjectKind: a finishedScan carries no type meta of its own (the
// cache's readers set it on the copies they return).
func (f *finishedScan) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// The getters of metav1.Object, which the informer (keys), the cache's
// readers (label selectors) and the event handlers (names) use.

func (f *finishedScan) GetNamespace() string    { return f.namespace.Value() }
func (f *finishedScan) GetName() string         { return f.field(textName) }
func (f *finishedScan) GetGenerateName() string { return "" }

// GetUID is the scan's uid, from its 16 bytes or its text.
func (f *finishedScan) GetUID() types.UID {
	if f.has&hasBinaryUID != 0 {
		return types.UID(uuid.UUID(f.uid).String())
	}
	return types.UID(f.field(textUID))
}
func (f *finishedScan) GetResourceVersion() string {
	return f.field(textResourceVersion)
}
func (f *finishedScan) GetGeneration() int64 { return f.generation }
func (f *finishedScan) GetSelfLink() string  { return "" }
func (f *finishedScan) GetCreationTimestamp() metav1.Time {
	if f.created == 0 {
		return metav1.Time{}
	}
	return unixNano(f.created)
}
func (f *finishedScan) GetDeletionTimestamp() *metav1.Time {
	if f.has&hasDeleted == 0 || f.rare == nil {
		return nil
	}
	t := unixNano(f.rare.deleted)
	return &t
}
func (f *finishedScan) GetDeletionGracePeriodSeconds() *int64 {
	if f.rare == nil || f.rare.grace == nil {
		return nil
	}
	g := *f.rare.grace
	return &g
}
func (f *finishedScan) GetLabels() map[string]string                { return nil }
func (f *finishedScan) GetAnnotations() map[string]string           { return f.scan().Annotations }
func (f *finishedScan) GetFinalizers() []string                     { return f.scan().Finalizers }
func (f *finishedScan) GetOwnerReferences() []metav1.OwnerReference { return f.scan().OwnerReferences }
func (f *finishedScan) GetManagedFields() []metav1.ManagedFieldsEntry {
	return nil
}

// The setters of metav1.Object: nothing may change a cached object.

func (f *finishedScan) readOnly(what string) {
	panic(fmt.Sprintf("the cached finished scan %s/%s was changed (%s): change a copy", f.GetNamespace(), f.GetName(), what))
}
func (f *finishedScan) SetNamespace(string)               { f.readOnly("namespace") }
func (f *finishedScan) SetName(string)                    { f.readOnly("name") }
func (f *finishedScan) SetGenerateName(string)            { f.readOnly("generateName") }
func (f *finishedScan) SetUID(types.UID)                  { f.readOnly("uid") }
func (f *finishedScan) SetResourceVersion(string)         { f.readOnly("resourceVersion") }
func (f *finishedScan) SetGeneration(int64)               { f.readOnly("generation") }
func (f *finishedScan) SetSelfLink(string)                { f.readOnly("selfLink") }
func (f *finishedScan) SetCreationTimestamp(metav1.Time)  { f.readOnly("creationTimestamp") }
func (f *finishedScan) SetDeletionTimestamp(*metav1.Time) { f.readOnly("deletionTimestamp") }
func (f *finishedScan) SetDeletionGracePeriodSeconds(*int64) {
	f.readOnly("deletionGracePeriodSeconds")
}
func (f *finishedScan) SetLabels(map[string]string)      { f.readOnly("labels") }
func (f *finishedScan) SetAnnotations(map[string]string) { f.readOnly("annotations") }
func (f *finishedScan) SetFinalizers([]string)           { f.readOnly("finalizers") }
func (f *finishedScan) SetOwnerReferences([]metav1.OwnerReference) {
	f.readOnly("ownerReferences")
}
func (f *finishedScan) SetManagedFields([]metav1.ManagedFieldsEntry) {
	f.readOnly("managedFields")
}
