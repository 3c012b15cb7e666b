package controller

import (
	"reflect"
	"testing"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
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
// Go's 256-byte size class (the type's own fields; its strings come on
// top). A CwacScan's empty fields take 640.
func TestFinishedScanSize(t *testing.T) {
	if n := unsafe.Sizeof(finishedScan{}); n > 256 {
		t.Errorf("a finishedScan takes %d bytes, more than 256", n)
	}
}
