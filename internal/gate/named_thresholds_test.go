package gate

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
)

// everyThreshold sets every field of spec.thresholds, each impact's maximum
// and the widest values.
func everyThreshold() *cwacv1alpha1.Thresholds {
	return &cwacv1alpha1.Thresholds{
		MaxTotalIssues:    ptr.To[int64](math.MaxInt64),
		MaxNewIssues:      ptr.To[int64](0),
		MaxIssuesByImpact: map[string]int64{"minor": 9, "critical": 0, "moderate": 7, "serious": 3},
		MinPagesScanned:   ptr.To[int32](math.MaxInt32),
		RequireComplete:   true,
	}
}

func TestNamedThresholds(t *testing.T) {
	want := []scanpod.Threshold{
		{Name: "maxTotalIssues", Value: "9223372036854775807"},
		{Name: "maxNewIssues", Value: "0"},
		{Name: "maxIssuesByImpact.critical", Value: "0"},
		{Name: "maxIssuesByImpact.serious", Value: "3"},
		{Name: "maxIssuesByImpact.moderate", Value: "7"},
		{Name: "maxIssuesByImpact.minor", Value: "9"},
		{Name: "minPagesScanned", Value: "2147483647"},
		{Name: "requireComplete", Value: "true"},
	}
	if diff := cmp.Diff(want, NamedThresholds(everyThreshold())); diff != "" {
		t.Errorf("every threshold (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name string
		t    *cwacv1alpha1.Thresholds
		want []scanpod.Threshold
	}{
		{"none", nil, nil},
		{"empty", &cwacv1alpha1.Thresholds{}, nil},
		{"a zero maximum is set", &cwacv1alpha1.Thresholds{MaxTotalIssues: ptr.To[int64](0)}, []scanpod.Threshold{{Name: "maxTotalIssues", Value: "0"}}},
		{"an impact axe lacks", &cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"bad key": 1, "serious": 2}},
			[]scanpod.Threshold{{Name: "maxIssuesByImpact.serious", Value: "2"}}},
	} {
		if diff := cmp.Diff(tc.want, NamedThresholds(tc.t)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// The names are spec.thresholds' own field names, so a field the API adds
// or renames shows here; and the runner takes every threshold the Job
// builder can give it.
func TestNamedThresholdsAreTheSpecsFieldsAndFitTheRunner(t *testing.T) {
	raw, err := json.Marshal(everyThreshold())
	if err != nil {
		t.Fatal(err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}
	var specNames []string
	for field, v := range spec {
		if nested, ok := v.(map[string]any); ok {
			for key := range nested {
				specNames = append(specNames, field+"."+key)
			}
			continue
		}
		specNames = append(specNames, field)
	}
	named := NamedThresholds(everyThreshold())
	got := make([]string, 0, len(named))
	var flags scanpod.ThresholdList
	for _, th := range named {
		got = append(got, th.Name)
		if err := flags.Set(th.Name + "=" + th.Value); err != nil {
			t.Errorf("the runner refuses %s: %v", th.Name, err)
		}
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(specNames)), slices.Sorted(slices.Values(got))); diff != "" {
		t.Errorf("names against spec.thresholds' JSON (-spec +named):\n%s", diff)
	}
	if len(named) > scanpod.MaxThresholds {
		t.Errorf("%d thresholds, more than the runner takes (%d)", len(named), scanpod.MaxThresholds)
	}
}
