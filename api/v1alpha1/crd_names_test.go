package v1alpha1_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/scanspec"
)

// scheduleNameRuleRE is the CRD's rule on a schedule's name length.
var scheduleNameRuleRE = regexp.MustCompile(`^self\.metadata\.name\.size\(\) <= (\d+)$`)

// The schedule CRD refuses names longer than scanspec.MaxNamePart: the
// longest name its scans' names keep whole. Its rule's number is a marker's
// literal; the generated CRD must say the Go constant's number.
func TestCRDScheduleNameRuleIsMaxNamePart(t *testing.T) {
	var found bool
	for _, v := range crdSchema(t, schedulesCRD).XValidations {
		m := scheduleNameRuleRE.FindStringSubmatch(v.Rule)
		if m == nil {
			continue
		}
		found = true
		if n, _ := strconv.Atoi(m[1]); n != scanspec.MaxNamePart {
			t.Errorf("%s: rule %q, want at most scanspec.MaxNamePart (%d)", schedulesCRD, v.Rule, scanspec.MaxNamePart)
		}
		if want := "at most " + strconv.Itoa(scanspec.MaxNamePart) + " characters"; !strings.Contains(v.Message, want) {
			t.Errorf("%s: the rule's message %q does not say %q", schedulesCRD, v.Message, want)
		}
	}
	if !found {
		t.Errorf("%s: no rule on metadata.name's size", schedulesCRD)
	}
}

// The CRDs' default spec.timeout is scanspec.DefaultTimeout, the deadline
// of a scan that came without one.
func TestCRDTimeoutDefaultIsDefaultTimeout(t *testing.T) {
	for file, spec := range scanSpecs(t) {
		def := spec.Properties["timeout"].Default
		var s string
		if def == nil || json.Unmarshal(def.Raw, &s) != nil {
			t.Fatalf("%s: spec.timeout has no string default", file)
		}
		if d, err := time.ParseDuration(s); err != nil || d != scanspec.DefaultTimeout {
			t.Errorf("%s: spec.timeout defaults to %q, want scanspec.DefaultTimeout (%s)", file, s, scanspec.DefaultTimeout)
		}
	}
}
