package controller

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func atVersion(name, version string) *cwacv1alpha1.CwacScan {
	return &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: version}}
}

// TestOwnWrites: a version this process wrote over is outdated until the
// cache shows another; a write that changed nothing records nothing;
// another scan's versions are its own; a deleted scan is forgotten.
func TestOwnWrites(t *testing.T) {
	var w ownWrites
	if w.outdated(atVersion("a", "1")) {
		t.Fatal("a scan never written is outdated")
	}
	w.wrote(atVersion("a", "2"), "1") // the finalizer: 1 → 2
	w.wrote(atVersion("a", "3"), "2") // the status: 2 → 3
	w.wrote(atVersion("a", "3"), "3") // nothing written
	w.wrote(atVersion("a", "3"), "")  // read from nowhere
	steps := []struct {
		name, version string
		want          bool
	}{
		{"a", "1", true},  // before both writes
		{"a", "2", true},  // between them
		{"b", "1", false}, // another scan
		{"a", "1", true},  // still, until the cache catches up
		{"a", "3", false}, // the version written: caught up
		{"a", "1", false}, // forgotten once caught up
	}
	for i, s := range steps {
		if got := w.outdated(atVersion(s.name, s.version)); got != s.want {
			t.Errorf("step %d: %s at %s outdated = %v, want %v", i, s.name, s.version, got, s.want)
		}
	}
	w.wrote(atVersion("c", "8"), "7")
	w.forget(types.NamespacedName{Namespace: "ns", Name: "c"})
	if w.outdated(atVersion("c", "7")) || len(w.replaced) != 0 {
		t.Errorf("a forgotten scan is still remembered: %v", w.replaced)
	}
}
