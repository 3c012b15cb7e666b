package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/mcpapi"
	"github.com/a11y-dev/cwac-operator/internal/orgaccess"
	"github.com/a11y-dev/cwac-operator/internal/store"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
)

// changesServer is a server over a SQLite store of two scans: w1 opens
// three issues of A and one of B; w2 fixes one of A's and B's.
func changesServer(t *testing.T, maxResponse int) *Server {
	t.Helper()
	st := storetest.OpenSQLite(t)
	ctx := context.Background()
	ids := map[string]int64{}
	for i, name := range []string{"w1", "w2"} {
		w, err := st.BeginScan(ctx, store.Scan{UID: "uid-" + name, Namespace: "ns", Name: name, Schedule: "weekly",
			FinishedAt: time.Unix(int64(100*(i+1)), 0), Phase: "Complete"}, "test")
		if err != nil {
			t.Fatal(err)
		}
		for _, org := range []string{"A", "B"} {
			oid, err := w.Organisation(ctx, org, "Health")
			if err != nil {
				t.Fatal(err)
			}
			if i == 1 {
				if err := w.Fix(ctx, []int64{ids[org+"0"]}, store.ReasonFixed); err != nil {
					t.Fatal(err)
				}
				continue
			}
			pages, err := w.AddPages(ctx, oid, []string{"https://" + strings.ToLower(org) + ".example/"})
			if err != nil {
				t.Fatal(err)
			}
			n := map[string]int{"A": 3, "B": 1}[org]
			first := w.IssueIDs(n)
			var issues []store.NewIssue
			var issueIDs []int64
			for k := range n {
				ids[fmt.Sprint(org, k)] = first + int64(k)
				issueIDs = append(issueIDs, first+int64(k))
				issues = append(issues, store.NewIssue{Fingerprint: fmt.Sprintf("%s-%d", org, k), OrgID: oid, PageID: pages[0], Width: 320,
					Audit: "axe_core_audit", Rule: "image-alt", Impact: "critical", ElementHTML: "<img>"})
			}
			if err := w.AddIssues(ctx, issueIDs, issues); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return &Server{cfg: Config{Namespace: "ns", History: store.NewHandle(st), MaxResponseBytes: maxResponse}}
}

func changeNames(out mcpapi.ScanChangesOutput) string {
	names := make([]string, 0, len(out.Changes))
	for _, c := range out.Changes {
		names = append(names, c.Issue.Fingerprint+" "+c.Change+" ("+c.Issue.State+")")
	}
	return strings.Join(names, ", ")
}

// TestScanChangesTool: a scan's changes, in pages that follow each other
// by next; a grant of one organisation reads its changes alone; bad
// arguments and a scan the history has not recorded are refused in words
// that say what is wrong.
func TestScanChangesTool(t *testing.T) {
	s := changesServer(t, 512<<10)
	ctx := context.Background()
	whole := &callInfo{reach: orgaccess.Whole()}
	first, err := s.scanChanges(ctx, whole, mcpapi.ScanChangesInput{ScanID: "w1", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := changeNames(first); got != "A-0 opened (fixed), A-1 opened (open), A-2 opened (open)" || first.Next == 0 || first.Returned != 3 ||
		whole.Target != "ns/w1" {
		t.Fatalf("first page: %s (next %d, returned %d, target %q)", got, first.Next, first.Returned, whole.Target)
	}
	second, err := s.scanChanges(ctx, whole, mcpapi.ScanChangesInput{ScanID: "w1", Limit: 3, After: first.Next})
	if err != nil || changeNames(second) != "B-0 opened (fixed)" || second.Next != 0 {
		t.Fatalf("second page: %s (next %d), %v", changeNames(second), second.Next, err)
	}
	if out, err := s.scanChanges(ctx, whole, mcpapi.ScanChangesInput{ScanID: "w2"}); err != nil ||
		changeNames(out) != "A-0 fixed (fixed), B-0 fixed (fixed)" || out.Next != 0 {
		t.Errorf("w2: %s (next %d), %v", changeNames(out), out.Next, err)
	}
	byA := &callInfo{reach: orgaccess.Granted([]cwacv1alpha1.CwacOrganisationGrant{{Spec: cwacv1alpha1.CwacOrganisationGrantSpec{
		Subjects: []cwacv1alpha1.GrantSubject{{Kind: cwacv1alpha1.GrantSubjectUser, Name: "u"}}, Organisations: []string{"B"}}}}, "u", nil)}
	if out, err := s.scanChanges(ctx, byA, mcpapi.ScanChangesInput{ScanID: "w2"}); err != nil || changeNames(out) != "B-0 fixed (fixed)" {
		t.Errorf("by a grant of B: %s, %v", changeNames(out), err)
	}
	for _, tc := range []struct {
		in   mcpapi.ScanChangesInput
		want string
	}{
		{mcpapi.ScanChangesInput{}, "scan_id is required"},
		{mcpapi.ScanChangesInput{ScanID: "W 1"}, "No scan found with ID: W 1"},
		{mcpapi.ScanChangesInput{ScanID: "w1", Limit: 501}, "Invalid limit: 501 (must be 1-500)"},
		{mcpapi.ScanChangesInput{ScanID: "w1", After: -1}, "Invalid after: -1"},
		{mcpapi.ScanChangesInput{ScanID: "w9"}, "Scan w9 is not in the issue history of namespace ns"},
	} {
		if _, err := s.scanChanges(ctx, &callInfo{reach: orgaccess.Whole()}, tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.in, err, tc.want)
		}
	}
	none := &Server{cfg: Config{Namespace: "ns"}}
	if _, err := none.scanChanges(ctx, whole, mcpapi.ScanChangesInput{ScanID: "w1"}); !errors.Is(err, errNoHistory) {
		t.Errorf("without a store: %v", err)
	}
}

// Under a small cap the answer holds what fits, says so, and its next
// continues after the last change it holds.
func TestScanChangesToolCap(t *testing.T) {
	s := changesServer(t, historyAnswerReserve+900) // room for two changes of about 400 bytes
	ctx := context.Background()
	whole := &callInfo{reach: orgaccess.Whole()}
	var seen []string
	in := mcpapi.ScanChangesInput{ScanID: "w1"}
	for range 5 {
		out, err := s.scanChanges(ctx, whole, in)
		if err != nil {
			t.Fatal(err)
		}
		if out.Returned == 0 || (out.Truncated && (out.Next == 0 || !strings.Contains(out.Note, "continue with after"))) {
			t.Fatalf("a capped page: %+v", out)
		}
		for _, c := range out.Changes {
			seen = append(seen, c.Issue.Fingerprint)
		}
		if out.Next == 0 {
			break
		}
		in.After = out.Next
	}
	if got := strings.Join(seen, " "); got != "A-0 A-1 A-2 B-0" {
		t.Errorf("the capped pages held %q, want every change once", got)
	}
	tiny := changesServer(t, historyAnswerReserve+10)
	if _, err := tiny.scanChanges(ctx, whole, mcpapi.ScanChangesInput{ScanID: "w1"}); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("a cap no change fits under: %v", err)
	}
}
