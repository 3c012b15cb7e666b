package controller

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwac"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// TestFinishedScanReadsAsItsScan: a finishedScan's getters (which the
// informer, the cache's readers and the event handlers call) answer as the
// CwacScan it stands for, for scans with and without each optional field;
// its deep copy is that CwacScan, a new one each time.
func TestFinishedScanReadsAsItsScan(t *testing.T) {
	bare := wholeScan(cwacv1alpha1.PhaseComplete)
	bare.DeletionTimestamp, bare.DeletionGracePeriodSeconds, bare.Annotations = nil, nil, nil
	bare.OwnerReferences, bare.Finalizers, bare.Spec.TTLSecondsAfterFinished = nil, nil, nil
	bare.Status.StartTime, bare.Status.CompletionTime, bare.Status.Summary = nil, nil, nil
	bare.Status.JobName = scanspec.JobName(bare) // made again when read, not kept
	for name, s := range map[string]*cwacv1alpha1.CwacScan{
		"every field": wholeScan(cwacv1alpha1.PhaseFailed), "complete": wholeScan(cwacv1alpha1.PhaseComplete), "bare": bare,
	} {
		f := compactScan(s)
		want := f.scan()
		var o client.Object = f
		if o.GetName() != want.Name || o.GetNamespace() != want.Namespace || o.GetUID() != want.UID ||
			o.GetResourceVersion() != want.ResourceVersion || o.GetGeneration() != want.Generation || o.GetGenerateName() != "" ||
			o.GetSelfLink() != "" || !reflect.DeepEqual(o.GetCreationTimestamp(), want.CreationTimestamp) ||
			!reflect.DeepEqual(o.GetDeletionTimestamp(), want.DeletionTimestamp) ||
			!reflect.DeepEqual(o.GetDeletionGracePeriodSeconds(), want.DeletionGracePeriodSeconds) ||
			o.GetLabels() != nil || !reflect.DeepEqual(o.GetAnnotations(), want.Annotations) ||
			!reflect.DeepEqual(o.GetFinalizers(), want.Finalizers) || !reflect.DeepEqual(o.GetOwnerReferences(), want.OwnerReferences) ||
			o.GetManagedFields() != nil || o.GetObjectKind().GroupVersionKind() != (schema.GroupVersionKind{}) {
			t.Errorf("%s: the getters differ from the scan's", name)
		}
		if want.Status.JobName != s.Status.JobName {
			t.Errorf("%s: job name %q, want %q", name, want.Status.JobName, s.Status.JobName)
		}
		a, b := f.DeepCopyObject().(*cwacv1alpha1.CwacScan), f.DeepCopyObject().(*cwacv1alpha1.CwacScan)
		if !reflect.DeepEqual(a, want) || a == b {
			t.Errorf("%s: the deep copy is not a new copy of the scan", name)
		}
		a.Finalizers = append(a.Finalizers, "changed")
		a.Annotations = map[string]string{"changed": ""}
		if c := f.scan(); !reflect.DeepEqual(c, want) {
			t.Errorf("%s: changing a copy changed the cache", name)
		}
	}
	if s, ok := scanOf((*finishedScan)(nil)); ok || s != nil {
		t.Error("a nil finishedScan read as a scan")
	}
	if s, ok := scanOf((*cwacv1alpha1.CwacScan)(nil)); ok || s != nil {
		t.Error("a nil scan read as a scan")
	}
	if _, ok := scanOf(&cwacv1alpha1.CwacScanSchedule{}); ok {
		t.Error("a schedule read as a scan")
	}
}

// TestFinishedScanIsReadOnly: every setter panics.
func TestFinishedScanIsReadOnly(t *testing.T) {
	f := compactScan(wholeScan(cwacv1alpha1.PhaseComplete))
	for name, set := range map[string]func(){
		"namespace": func() { f.SetNamespace("") }, "name": func() { f.SetName("") }, "generateName": func() { f.SetGenerateName("") },
		"uid": func() { f.SetUID("") }, "resourceVersion": func() { f.SetResourceVersion("") }, "generation": func() { f.SetGeneration(0) },
		"selfLink": func() { f.SetSelfLink("") }, "creation": func() { f.SetCreationTimestamp(f.GetCreationTimestamp()) },
		"deletion": func() { f.SetDeletionTimestamp(nil) }, "grace": func() { f.SetDeletionGracePeriodSeconds(nil) },
		"labels": func() { f.SetLabels(nil) }, "annotations": func() { f.SetAnnotations(nil) }, "finalizers": func() { f.SetFinalizers(nil) },
		"owners": func() { f.SetOwnerReferences(nil) }, "managedFields": func() { f.SetManagedFields(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Set %s changed a cached scan without a panic", name)
				}
			}()
			set()
		}()
	}
}

// TestFinishedScanSize: what the cache holds of a finished scan stays in
// Go's 160-byte size class (the type's own fields; its strings come on
// top). A CwacScan's empty fields take 640.
func TestFinishedScanSize(t *testing.T) {
	if n := unsafe.Sizeof(finishedScan{}); n > 160 {
		t.Errorf("a finishedScan takes %d bytes, more than 160", n)
	}
}

// TestFinishedScanLeavesOutWhatItCanMake: the uid, the results path and
// the owners are kept in less room when they take their usual form, and
// read back exactly in every form.
func TestFinishedScanLeavesOutWhatItCanMake(t *testing.T) {
	const uid = "5b7f2c9e-1d3a-4e8b-9f60-2a1c3d4e5f60"
	usual := func(change func(*cwacv1alpha1.CwacScan)) *cwacv1alpha1.CwacScan {
		s := wholeScan(cwacv1alpha1.PhaseComplete)
		s.UID, s.Annotations = uid, nil
		s.Status.JobName = scanspec.JobName(s)
		s.Status.ResultsPath = scanspec.ScanDir(s) + "/2026-11-21_23-00-00_" + cwac.AuditNameFrom(s.Name)
		if change != nil {
			change(s)
		}
		return s
	}
	second := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "other", UID: "cm-uid"}
	tests := []struct {
		name     string
		scan     *cwacv1alpha1.CwacScan
		maxText  int // the record's text at most this long
		wantFlag presence
	}{
		// name "nightly-1", resourceVersion "42", the results' timestamp.
		{"the usual forms", usual(nil), len("nightly-1") + len("42") + len("2026-11-21_23-00-00"),
			hasBinaryUID | hasResultsInScanDir | hasDefaultAuditSuffix | hasOwner},
		{"an upper-case uid", usual(func(s *cwacv1alpha1.CwacScan) {
			s.UID = types.UID(strings.ToUpper(uid))
			s.Status.JobName = scanspec.JobName(s)
			s.Status.ResultsPath = scanspec.ScanDir(s) + "/2026-11-21_23-00-00_" + cwac.AuditNameFrom(s.Name)
		}), 100, hasResultsInScanDir | hasDefaultAuditSuffix},
		{"a uid that is not a UUID", usual(func(s *cwacv1alpha1.CwacScan) { s.UID = "not-a-uuid" }), 100, hasOwner},
		{"another audit name", usual(func(s *cwacv1alpha1.CwacScan) {
			s.Status.ResultsPath = scanspec.ScanDir(s) + "/2026-11-21_23-00-00_weekly-audit"
		}), 100, hasBinaryUID | hasResultsInScanDir},
		{"results elsewhere", usual(func(s *cwacv1alpha1.CwacScan) {
			s.Status.ResultsPath = "team-b/x-12345678/2026-11-21_23-00-00_nightly-1"
		}),
			100, hasBinaryUID},
		{"only the scan directory", usual(func(s *cwacv1alpha1.CwacScan) { s.Status.ResultsPath = scanspec.ScanDir(s) + "/" }),
			100, hasBinaryUID},
		{"only the audit name", usual(func(s *cwacv1alpha1.CwacScan) {
			s.Status.ResultsPath = scanspec.ScanDir(s) + "/_" + cwac.AuditNameFrom(s.Name)
		}), 100, hasBinaryUID | hasResultsInScanDir},
		{"no results", usual(func(s *cwacv1alpha1.CwacScan) { s.Status.ResultsPath = "" }), 100, hasBinaryUID},
		{"two owners", usual(func(s *cwacv1alpha1.CwacScan) { s.OwnerReferences = append(s.OwnerReferences, second) }), 100, hasOwner},
		{"no owner", usual(func(s *cwacv1alpha1.CwacScan) { s.OwnerReferences = nil }), 100, hasBinaryUID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := compactScan(tt.scan)
			if f == nil {
				t.Fatal("not made into a record")
			}
			if len(f.text) > tt.maxText || f.has&tt.wantFlag != tt.wantFlag {
				t.Errorf("text %q (%d bytes, want at most %d), flags %b (want %b among them)", f.text, len(f.text), tt.maxText, f.has, tt.wantFlag)
			}
			got := f.scan()
			if got.UID != tt.scan.UID || f.GetUID() != tt.scan.UID || got.Status.ResultsPath != tt.scan.Status.ResultsPath ||
				got.Status.JobName != tt.scan.Status.JobName || !reflect.DeepEqual(got.OwnerReferences, tt.scan.OwnerReferences) ||
				!reflect.DeepEqual(got.DeletionTimestamp, tt.scan.DeletionTimestamp) || !reflect.DeepEqual(f.GetDeletionTimestamp(), tt.scan.DeletionTimestamp) {
				t.Errorf("read back uid %q, results %q, job %q, owners %v, deleted %v; want %q, %q, %q, %v, %v", got.UID, got.Status.ResultsPath,
					got.Status.JobName, got.OwnerReferences, got.DeletionTimestamp, tt.scan.UID, tt.scan.Status.ResultsPath, tt.scan.Status.JobName,
					tt.scan.OwnerReferences, tt.scan.DeletionTimestamp)
			}
		})
	}
}

// TestFinishedScanTooLongStaysWhole: a scan whose strings would not fit a
// record's 64 KiB of text is cached whole (a results path is written by a
// scan pod, so its length is not the operator's to promise).
func TestFinishedScanTooLongStaysWhole(t *testing.T) {
	s := wholeScan(cwacv1alpha1.PhaseComplete)
	s.Status.ResultsPath = strings.Repeat("a", maxRecordText)
	if f := compactScan(s); f != nil {
		t.Fatalf("a record of %d bytes of text", len(f.text))
	}
	cached, err := slimFinishedScans(s)
	if err != nil || cached != s {
		t.Errorf("cached as %T (%v), want the scan itself", cached, err)
	}
	others := len(s.Name) + len(s.UID) + len(s.ResourceVersion) + len(s.Annotations[cwacv1alpha1.AnnotationScheduledTime])
	s.Status.ResultsPath = strings.Repeat("a", maxRecordText-others)
	if f := compactScan(s); f == nil || f.scan().Status.ResultsPath != s.Status.ResultsPath {
		t.Error("a scan whose text just fits was not made into a record read back whole")
	}
}
