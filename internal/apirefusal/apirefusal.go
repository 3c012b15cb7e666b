// Package apirefusal words the API server's Invalid answer to an object it
// refused — each refused field and why — in the caller's own names for the
// fields: the MCP server's arguments, the kubectl plugin's flags. Both leave
// judging a scan to the API server (the CRD, in api/v1alpha1, is the one
// statement of what a valid scan is) and both word its answer this one way.
package apirefusal

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Bounds on the text: how many of the API server's reasons it lists, and
// the bytes of one reason and of the message given when there is none.
const (
	MaxCauses       = 8
	maxCauseBytes   = 512
	maxMessageBytes = 1024
)

// Describe words err, when it is the API server's Invalid answer, as
// "name: why; name: why", naming each field with name (which returns the
// field itself when the caller has no name for it); ok is false for any
// other error.
func Describe(err error, name func(field string) string) (text string, ok bool) {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Reason != metav1.StatusReasonInvalid {
		return "", false
	}
	st := status.Status()
	var parts []string
	if st.Details != nil {
		for i, c := range st.Details.Causes {
			if i == MaxCauses {
				parts = append(parts, fmt.Sprintf("and %d more", len(st.Details.Causes)-MaxCauses))
				break
			}
			parts = append(parts, causeText(c, name))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, textcap.Head(st.Message, maxMessageBytes))
	}
	return strings.Join(parts, "; "), true
}

// causeText is one cause as "name: why". The API server repeats the field
// in some messages ("spec.x in body should …"); that is dropped. Other spec
// fields a message names (a CEL rule's own message, a type check's "in
// spec.shards") are named too. Causes about the object as a whole (the CEL
// rule on spec, "some validation rules were not checked") have no value
// worth showing: only their message.
func causeText(c metav1.StatusCause, name func(string) string) string {
	msg := strings.ReplaceAll(c.Message, c.Field+" in body ", "")
	msg = specFieldRE.ReplaceAllStringFunc(msg, name)
	switch c.Field {
	case "", "<nil>", "spec":
		msg = strings.TrimPrefix(msg, "Invalid value: ")
		msg = strings.TrimPrefix(msg, "null: ")
		msg = strings.TrimPrefix(msg, `"object": `)
		msg = strings.TrimPrefix(msg, `"": `)
		return textcap.Head(msg, maxCauseBytes)
	}
	return name(c.Field) + ": " + textcap.Head(msg, maxCauseBytes)
}

// specFieldRE matches a spec field's path in a message: spec.urls,
// spec.viewportSizes[phone].width.
var specFieldRE = regexp.MustCompile(`\bspec(\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]\s]*\])+`)

// A Name is what a caller calls an API field and every field under it.
type Name struct{ Field, As string }

// Lookup finds the first of names whose Field is field or holds it
// (spec.urls holds spec.urls[2] and spec.urls.x, not spec.urlsExtra), and
// returns what the caller calls it and the rest of field below it ("[2]").
func Lookup(names []Name, field string) (as, rest string, ok bool) {
	for _, n := range names {
		if rest, found := strings.CutPrefix(field, n.Field); found && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return n.As, rest, true
		}
	}
	return "", "", false
}
