package results

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

func signalsOf(t *testing.T, files map[string]string) *Signals {
	t.Helper()
	fsys := fstest.MapFS{}
	names := make([]string, 0, len(files))
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
		names = append(names, name)
	}
	b := NewSignalsBuilder()
	if err := WalkNamed(context.Background(), fsys, names, b); err != nil {
		t.Fatal(err)
	}
	return b.Signals(-1)
}

// Template groups: MaxSignalItems are kept; the issues of a group past
// them are counted as ungrouped, in no group.
func TestTemplateGroupsBound(t *testing.T) {
	for _, extra := range []int{0, 1} {
		var sb strings.Builder
		sb.WriteString("organisation,base_url,url,id,html,viewport_size,num_issues\n")
		for g := range MaxSignalItems + extra {
			for _, page := range []string{"a", "b"} {
				fmt.Fprintf(&sb, "O,http://o/,http://o/%s,rule,<p id=%d>,s,1\n", page, g)
			}
		}
		tpl := signalsOf(t, map[string]string{AxeCoreAuditFile: sb.String()}).Templates
		if tpl.TemplateIssues != MaxSignalItems || len(tpl.Issues) != MaxSignalItems || tpl.UngroupedInstances != int64(2*extra) {
			t.Errorf("%d groups: %d template issues (%d listed), %d ungrouped", MaxSignalItems+extra, tpl.TemplateIssues, len(tpl.Issues), tpl.UngroupedInstances)
		}
	}
}

// Broken responses: MaxSignalItems are listed; all are counted.
func TestResponsesListBound(t *testing.T) {
	for _, extra := range []int{0, 1} {
		var sb strings.Builder
		sb.WriteString("base_url,parent_url,url,status_code\n")
		for i := range MaxSignalItems + extra {
			fmt.Fprintf(&sb, "http://o/,http://o/,http://o/%d,404\n", i)
		}
		r := signalsOf(t, map[string]string{UnexpectedCodeFile: sb.String()}).Responses
		if len(r.List) != MaxSignalItems || r.Responses != int64(MaxSignalItems+extra) || r.ByStatus["404"] != int64(MaxSignalItems+extra) {
			t.Errorf("%d responses: %d listed, %d counted", MaxSignalItems+extra, len(r.List), r.Responses)
		}
	}
}

// Organisations: MaxSignalOrganisations are told apart; the pages of
// others are counted under OtherKey.
func TestSignalOrganisationsBound(t *testing.T) {
	for _, extra := range []int{0, 2} {
		var sb strings.Builder
		sb.WriteString("organisation,base_url,url,page_title\n")
		for i := range MaxSignalOrganisations + extra {
			fmt.Fprintf(&sb, "Org %d,http://o%d/,http://o%d/,T\n", i, i, i)
		}
		ti := signalsOf(t, map[string]string{TitleAuditFile: sb.String()}).Titles
		want := MaxSignalOrganisations
		if extra > 0 {
			want++ // OtherKey
		}
		if len(ti.ByOrganisation) != want || ti.Pages != int64(MaxSignalOrganisations+extra) {
			t.Fatalf("%d organisations: %d listed, %d pages", MaxSignalOrganisations+extra, len(ti.ByOrganisation), ti.Pages)
		}
		if extra > 0 {
			last := ti.ByOrganisation[0] // "(other)" sorts first
			if last.Organisation != OtherKey || last.Pages != int64(extra) {
				t.Errorf("past the bound: %+v", last)
			}
		}
	}
}
