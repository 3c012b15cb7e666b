//go:build integration

package chart

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/historywriter"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/realcwac"
)

// TestChartRBACSufficesForTheHistoryWriter runs the issue history's writer
// as the MCP server's own service account, as the chart's Role allows it:
// the scan cache (list, watch), the Lease (get, create, update), the scan
// pod's image (list pods) and the Events on the scan (create); a finished
// scan is recorded and says so.
func TestChartRBACSufficesForTheHistoryWriter(t *testing.T) {
	const ns = "rbac-history"
	accts := installRBAC(t, render(t, ns))
	restCfg := as(accts.mcp)
	cs, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	root := t.TempDir()
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "weekly-1"},
		Spec: cwacv1alpha1.CwacScanSpec{URLs: []string{"https://a.example/"}, AuditName: "weekly"}}
	if err := admin.Create(ctx, scan); err != nil {
		t.Fatal(err)
	}
	rel := ns + "/weekly-1/2026-11-21_23-18-23_weekly"
	if err := realcwac.Copy(filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	scan.Status = cwacv1alpha1.CwacScanStatus{Phase: cwacv1alpha1.PhaseComplete, ResultsPath: rel, CompletionTime: &now, JobName: "weekly-1-abcdefgh"}
	if err := admin.Status().Update(ctx, scan); err != nil {
		t.Fatal(err)
	}

	log := slog.New(slog.DiscardHandler)
	scans := mcpserver.StartScanCache(ctx, restCfg, scheme, ns, log)
	if scans == nil {
		t.Fatal("the MCP server's account cannot list and watch scans")
	}
	informer, err := scans.GetInformer(ctx, &cwacv1alpha1.CwacScan{})
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenSQLite(t)
	w, err := historywriter.NewWriter(historywriter.Config{Store: st, Scans: mcpserver.ScanLister{Reader: scans, Namespace: ns}, Changes: informer,
		Open: mcpserver.OpenScanResults(root, nil), Clientset: cs, Holder: "rbac", Log: log})
	if err != nil {
		t.Fatal(err)
	}
	elected := make(chan struct{})
	go historywriter.Election{Clientset: cs, Namespace: ns, Lease: "cwac-cwac-operator-history-writer", Identity: "mcp-0", Log: log}.Run(ctx,
		func(ctx context.Context) {
			close(elected)
			_ = w.Run(ctx)
		})
	select {
	case <-elected:
	case <-time.After(30 * time.Second):
		t.Fatal("the MCP server's account did not take the Lease within 30s")
	}
	for range 500 {
		if ok, _ := st.HasScan(ctx, string(scan.UID)); ok {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ok, err := st.HasScan(ctx, string(scan.UID)); !ok || err != nil {
		t.Fatalf("the scan was not recorded: %v", err)
	}
	// The Event follows the store's commit.
	for range 500 {
		events := &eventsv1.EventList{}
		if err := admin.List(ctx, events, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		for _, e := range events.Items {
			if e.Reason == cwacv1alpha1.ReasonHistoryRecorded && e.Regarding.Name == "weekly-1" {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("no %s Event on the scan within 10s", cwacv1alpha1.ReasonHistoryRecorded)
}
