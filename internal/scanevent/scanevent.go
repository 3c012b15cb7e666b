// Package scanevent builds the Kubernetes Events that processes other than
// the operator's controllers (the MCP server, the issue history's writer)
// leave on a CwacScan, so that `kubectl describe` shows them beside the
// operator's own; and it holds the API server's limit on an Event's note,
// which the operator's Events keep to as well.
package scanevent

import (
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// MaxNoteBytes is the API server's limit on an Event's note.
const MaxNoteBytes = 1024

// maxInstanceBytes is the API server's limit on reportingInstance.
const maxInstanceBytes = 128

// Source is the process that reports an Event.
type Source struct {
	// Controller names it (reportingController), e.g. "cwac.a11y.dev/mcp-server".
	Controller string
	// Instance names this replica; "" takes the controller's last path
	// element and the host name (the pod's name).
	Instance string
}

// MCPServer is the MCP server's source: its tools and the issue history's writer.
var MCPServer = Source{Controller: "cwac.a11y.dev/mcp-server"}

// Event is one Event on a scan.
type Event struct {
	// NamePart goes into the Event's generated name after the scan's
	// (scanspec.EventNamePrefix), e.g. "history".
	NamePart string
	Action   string
	Reason   string
	Warning  bool
	// Note is cut to MaxNoteBytes.
	Note string
	At   time.Time
}

// New builds the Event e regarding scan, reported by src.
func New(src Source, scan *cwacv1alpha1.CwacScan, e Event) *eventsv1.Event {
	return About(src, "CwacScan", scan, e)
}

// About builds the Event e regarding one of the API's objects (its kind:
// CwacScan, CwacDigest), reported by src.
func About(src Source, kind string, obj metav1.Object, e Event) *eventsv1.Event {
	typ := corev1.EventTypeNormal
	if e.Warning {
		typ = corev1.EventTypeWarning
	}
	instance := src.Instance
	if instance == "" {
		instance = lastElement(src.Controller) + "-" + hostname()
	}
	return &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{GenerateName: scanspec.EventNamePrefix(obj.GetName(), e.NamePart), Namespace: obj.GetNamespace()},
		EventTime:           metav1.NewMicroTime(e.At),
		ReportingController: src.Controller,
		ReportingInstance:   textcap.Head(instance, maxInstanceBytes),
		Action:              e.Action,
		Reason:              e.Reason,
		Type:                typ,
		Note:                textcap.Head(e.Note, MaxNoteBytes),
		Regarding: corev1.ObjectReference{
			APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: obj.GetUID(),
		},
	}
}

func lastElement(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return s[i+1:]
		}
	}
	return s
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
