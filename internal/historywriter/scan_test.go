package historywriter

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

func TestRecordable(t *testing.T) {
	pages := func(n int32) *cwacv1alpha1.ScanSummary { return &cwacv1alpha1.ScanSummary{PagesScanned: n} }
	for _, tt := range []struct {
		name   string
		status cwacv1alpha1.CwacScanStatus
		want   bool
	}{
		{"complete", cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete, ResultsPath: "ns/s"}, true},
		{"complete without a results path", cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete}, false},
		{"failed with pages scanned", cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseFailed, ResultsPath: "ns/s", Summary: pages(3)}, true},
		{"failed with no page scanned", cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseFailed, ResultsPath: "ns/s", Summary: pages(0)}, false},
		{"failed without a summary", cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseFailed, ResultsPath: "ns/s"}, false},
		{"failed without a results path", cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseFailed, Summary: pages(3)}, false},
		{"running", cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseRunning, ResultsPath: "ns/s", Summary: pages(3)}, false},
		{"pending", cwacv1alpha1.CwacScanStatus{}, false},
	} {
		if got := Recordable(&cwacv1alpha1.CwacScan{Status: tt.status}); got != tt.want {
			t.Errorf("%s: Recordable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFinishedAt(t *testing.T) {
	created, finished, done := time.Unix(100, 0), time.Unix(200, 0), time.Unix(300, 0)
	cond := func(status metav1.ConditionStatus) []metav1.Condition {
		return []metav1.Condition{{Type: cwacv1alpha1.ConditionFinished, Status: status, LastTransitionTime: metav1.NewTime(finished)}}
	}
	for _, tt := range []struct {
		name   string
		status cwacv1alpha1.CwacScanStatus
		want   time.Time
	}{
		{"completion time", cwacv1alpha1.CwacScanStatus{CompletionTime: &metav1.Time{Time: done}, Conditions: cond("True")}, done},
		{"the Finished condition", cwacv1alpha1.CwacScanStatus{Conditions: cond("True")}, finished},
		{"a Finished condition not true", cwacv1alpha1.CwacScanStatus{Conditions: cond("False")}, created},
		{"neither", cwacv1alpha1.CwacScanStatus{}, created},
	} {
		scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(created)}, Status: tt.status}
		if got := FinishedAt(scan); !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("%s: FinishedAt = %v, want %v in UTC", tt.name, got, tt.want)
		}
	}
}

func TestOldestFirst(t *testing.T) {
	at := func(name string, sec int64) *cwacv1alpha1.CwacScan {
		return &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: cwacv1alpha1.CwacScanStatus{CompletionTime: &metav1.Time{Time: time.Unix(sec, 0)}}}
	}
	for _, tt := range []struct {
		a, b *cwacv1alpha1.CwacScan
		want int
	}{
		{at("b", 1), at("a", 2), -1},
		{at("a", 2), at("b", 1), 1},
		{at("a", 1), at("b", 1), -1},
		{at("b", 1), at("a", 1), 1},
		{at("a", 1), at("a", 1), 0},
	} {
		if got := oldestFirst(tt.a, tt.b); got != tt.want {
			t.Errorf("oldestFirst(%s@%v, %s@%v) = %d, want %d", tt.a.Name, FinishedAt(tt.a), tt.b.Name, FinishedAt(tt.b), got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	done := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	scan := &cwacv1alpha1.CwacScan{
		ObjectMeta: metav1.ObjectMeta{Name: "weekly-1", Namespace: "a11y", UID: "u-1", Labels: map[string]string{cwacv1alpha1.LabelSchedule: "weekly"}},
		Status: cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete, ResultsPath: "a11y/weekly-1/2026-01-02_03-00-00_x",
			CompletionTime: &metav1.Time{Time: done}},
	}
	want := store.Scan{UID: "u-1", Namespace: "a11y", Name: "weekly-1", Schedule: "weekly", FinishedAt: done, Phase: "Complete",
		ResultsPath: "a11y/weekly-1/2026-01-02_03-00-00_x", Engine: store.EngineVersions{CWACImageDigest: "cwac@sha256:ab"}}
	if got := Describe(scan, "cwac@sha256:ab"); got != want {
		t.Errorf("Describe = %+v, want %+v", got, want)
	}
}

func TestPodImageID(t *testing.T) {
	pod := func(statuses ...corev1.ContainerStatus) corev1.Pod {
		return corev1.Pod{Status: corev1.PodStatus{ContainerStatuses: statuses}}
	}
	for _, tt := range []struct {
		name string
		pods []corev1.Pod
		want string
	}{
		{"containerd", []corev1.Pod{pod(corev1.ContainerStatus{Name: "cwac", ImageID: "reg/cwac@sha256:ab"})}, "reg/cwac@sha256:ab"},
		{"docker's prefix", []corev1.Pod{pod(corev1.ContainerStatus{Name: "cwac", ImageID: "docker-pullable://reg/cwac@sha256:ab"})}, "reg/cwac@sha256:ab"},
		{"another container", []corev1.Pod{pod(corev1.ContainerStatus{Name: "sidecar", ImageID: "x@sha256:1"})}, ""},
		{"not pulled yet, then a shard that ran", []corev1.Pod{pod(corev1.ContainerStatus{Name: "cwac"}),
			pod(corev1.ContainerStatus{Name: "cwac", ImageID: "sha256:cd"})}, "sha256:cd"},
		{"no pod", nil, ""},
	} {
		if got := podImageID(tt.pods); got != tt.want {
			t.Errorf("%s: podImageID = %q, want %q", tt.name, got, tt.want)
		}
	}
}
