package scanevent

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
)

func TestNew(t *testing.T) {
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Name: "weekly-1", Namespace: "a11y", UID: types.UID("u-1")}}
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		src      Source
		e        Event
		wantType string
		wantNote string
		wantInst string
	}{
		{"normal", Source{Controller: "cwac.a11y.dev/mcp-server", Instance: "pod-a"},
			Event{NamePart: "created", Action: "Create", Reason: "CreatedViaMCP", Note: "created through MCP", At: at},
			corev1.EventTypeNormal, "created through MCP", "pod-a"},
		{"warning, a long note cut on a character", Source{Controller: "x/y", Instance: strings.Repeat("i", 300)},
			Event{NamePart: "history", Action: "RecordHistory", Reason: "HistoryIngestFailed", Warning: true, Note: strings.Repeat("é", 600), At: at},
			corev1.EventTypeWarning, "", ""},
		{"the instance from the host name", Source{Controller: "cwac.a11y.dev/mcp-server"},
			Event{NamePart: "history", Reason: "R", At: at}, corev1.EventTypeNormal, "", "mcp-server-" + hostname()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := New(tc.src, scan, tc.e)
			if ev.Type != tc.wantType || ev.Reason != tc.e.Reason || ev.Action != tc.e.Action || ev.ReportingController != tc.src.Controller {
				t.Errorf("type %q reason %q action %q controller %q", ev.Type, ev.Reason, ev.Action, ev.ReportingController)
			}
			if len(ev.Note) > MaxNoteBytes || !utf8.ValidString(ev.Note) || (tc.wantNote != "" && ev.Note != tc.wantNote) {
				t.Errorf("note of %d bytes: %q", len(ev.Note), ev.Note)
			}
			if len(tc.e.Note) > MaxNoteBytes && len(ev.Note) < MaxNoteBytes-8 {
				t.Errorf("a long note was cut to %d bytes, want close to %d", len(ev.Note), MaxNoteBytes)
			}
			if len(ev.ReportingInstance) > maxInstanceBytes || (tc.wantInst != "" && ev.ReportingInstance != tc.wantInst) {
				t.Errorf("instance %q", ev.ReportingInstance)
			}
			r := ev.Regarding
			if r.Kind != "CwacScan" || r.Name != "weekly-1" || r.Namespace != "a11y" || r.UID != "u-1" || r.APIVersion != cwacv1alpha1.GroupVersion.String() {
				t.Errorf("regarding %+v", r)
			}
			if ev.Namespace != "a11y" || !strings.HasPrefix(ev.GenerateName, "weekly-1") || !strings.Contains(ev.GenerateName, tc.e.NamePart) {
				t.Errorf("name %q in %q", ev.GenerateName, ev.Namespace)
			}
			if !ev.EventTime.Time.Equal(at) {
				t.Errorf("time %v", ev.EventTime)
			}
		})
	}
}
