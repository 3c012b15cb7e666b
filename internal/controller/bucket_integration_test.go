//go:build integration

package controller

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/minio/minio-go/v7"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
	"github.com/a11y-dev/cwac-operator/internal/scanjob"
	"github.com/a11y-dev/cwac-operator/internal/scanpod"
	"github.com/a11y-dev/cwac-operator/internal/scanspec"
	"github.com/a11y-dev/cwac-operator/internal/testutil/freeport"
	"github.com/a11y-dev/cwac-operator/internal/testutil/seaweedfs"
)

// TestResultsInBucket: with a results bucket, a scan gets a Secret holding
// its grant (signed, confined to its directory, lasting its timeout and a
// margin) and a pod that stores with it and mounts no claim; deleting a
// scan with resultsPolicy Delete (by hand, or when its
// ttlSecondsAfterFinished has passed) removes its keys from the bucket, no
// cleanup pod; a bucket the operator cannot reach is said in a Warning
// Event and no Job is made.
func TestResultsInBucket(t *testing.T) {
	srv := seaweedfs.Start(t, false)
	srv.MakeBucket(t, "cwac-results")
	cfg := srv.Config(t, srv.Admin, "cwac-results", "results")
	st, err := objectstore.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jobOpts := testOpts
	jobOpts.Bucket = scanjob.BucketOptions{Config: cfg, CredentialsSecret: "cwac-bucket"}
	clock := newTestClock()
	startManagerWith(t, Options{JobOptions: jobOpts, Bucket: st, Policy: testPolicy(), Now: clock.Now, CleanupTimeout: 5 * time.Minute})
	ns := newNamespace(t)

	scan := createScan(t, ns, "in-bucket", deleteSpec())
	job := waitJob(t, ns, "in-bucket")
	secret := &corev1.Secret{}
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: scanspec.JobName(scan)}, secret); err != nil {
		t.Fatalf("the grant Secret: %v", err)
	}
	if !metav1.IsControlledBy(secret, getScan(t, ns, "in-bucket")) {
		t.Error("the grant Secret is not owned by the scan")
	}
	var g objectstore.Grant
	if err := json.Unmarshal(secret.Data[scanpod.GrantFile], &g); err != nil || g.Check() != nil {
		t.Fatalf("the grant: %v / %v", err, g.Check())
	}
	if want := "results/" + scanspec.ScanDir(scan) + "/"; g.KeyPrefix != want {
		t.Errorf("grant prefix %q, want %q", g.KeyPrefix, want)
	}
	if left := time.Until(g.Expires); left < scanspec.Timeout(scan) || left > scanspec.Timeout(scan)+grantMargin+time.Minute {
		t.Errorf("the grant lasts %s, want the timeout %s and the margin", left, scanspec.Timeout(scan))
	}
	if strings.Contains(string(secret.Data[scanpod.GrantFile]), srv.Admin.SecretKey) {
		t.Error("the grant carries the secret key")
	}
	pod := job.Spec.Template.Spec
	for _, v := range pod.Volumes {
		if v.PersistentVolumeClaim != nil || (v.Secret != nil && v.Secret.SecretName != secret.Name) {
			t.Errorf("the scan pod mounts %+v", v.VolumeSource)
		}
	}
	// The grant stores under the scan's directory: as the scan pod would.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := objectstore.UploadGranted(context.Background(), &g, dir, objectstore.UploadRetry); err != nil {
		t.Fatalf("storing with the scan's grant: %v", err)
	}
	startPod(t, job, terminatedStatus(0, "Completed", completeReport(t)))
	finishJob(t, job, true, "", "")
	waitPhase(t, ns, "in-bucket", cwacv1alpha1.PhaseComplete)

	// Retention: a scan whose ttlSecondsAfterFinished has passed is deleted,
	// and with resultsPolicy Delete its keys go with it.
	expiring := deleteSpec()
	expiring.TTLSecondsAfterFinished = ptr.To[int32](1)
	expires := createScan(t, ns, "expires", expiring)
	expiresJob := waitJob(t, ns, "expires")
	key := "results/" + scanspec.ScanDir(expires) + "/2026-11-21_23-18-23_expires/axe_core_audit.csv"
	if _, err := srv.Client(t, srv.Admin).PutObject(context.Background(), "cwac-results", key, strings.NewReader("x"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	startPod(t, expiresJob, terminatedStatus(0, "Completed", completeReport(t)))
	finishJob(t, expiresJob, true, "", "")
	waitGone(t, ns, "expires")
	_, err = srv.Client(t, srv.Admin).StatObject(context.Background(), "cwac-results", key, minio.StatObjectOptions{})
	if minio.ToErrorResponse(err).Code != minio.NoSuchKey {
		t.Errorf("the expired scan's key: %v, want it deleted", err)
	}

	// Deleted with resultsPolicy Delete: its keys go, no cleanup pod.
	if err := k8s.Delete(ctxT(t), getScan(t, ns, "in-bucket")); err != nil {
		t.Fatal(err)
	}
	waitGone(t, ns, "in-bucket")
	waitEvents(t, scan, "Normal/ResultsDeleted")
	for oi := range srv.Client(t, srv.Admin).ListObjects(context.Background(), "cwac-results", minio.ListObjectsOptions{Prefix: "results/", Recursive: true}) {
		t.Errorf("left in the bucket: %s (%v)", oi.Key, oi.Err)
	}

}

// TestResultsBucketUnreachable: a bucket the operator cannot reach is said
// in a Warning Event naming the cause, and no Job is made.
func TestResultsBucketUnreachable(t *testing.T) {
	cfg := objectstore.Config{Endpoint: "http://" + freeport.Refused(t), Region: "us-east-1", Bucket: "cwac-results", PathStyle: true,
		CredentialsDir: t.TempDir()}
	for _, name := range []string{objectstore.AccessKeyFile, objectstore.SecretKeyFile} {
		if err := os.WriteFile(filepath.Join(cfg.CredentialsDir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	down, err := objectstore.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jobOpts := testOpts
	jobOpts.Bucket = scanjob.BucketOptions{Config: cfg}
	startManagerWith(t, Options{JobOptions: jobOpts, Bucket: down, Policy: testPolicy()})
	ns := newNamespace(t)
	scan := createScan(t, ns, "no-bucket", simpleSpec())
	waitEvents(t, scan, "Warning/ResultsNotStored")
	found := false
	for _, n := range eventNotes(t, scan) {
		found = found || strings.Contains(n, string(objectstore.CauseUnreachable))
	}
	if !found {
		t.Errorf("no Event names the cause: %q", eventNotes(t, scan))
	}
	waitFor(t, "Started=False/ResultsNotStored", func() (bool, error) {
		c := meta.FindStatusCondition(getScan(t, ns, "no-bucket").Status.Conditions, cwacv1alpha1.ConditionStarted)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == cwacv1alpha1.ReasonResultsNotStored, nil
	})
	job := &batchv1.Job{}
	if err := k8s.Get(ctxT(t), client.ObjectKey{Namespace: ns, Name: scanspec.JobName(scan)}, job); !apierrors.IsNotFound(err) {
		t.Errorf("a Job was made without a grant: %v", err)
	}
	if s := getScan(t, ns, "no-bucket"); s.Status.Phase == cwacv1alpha1.PhaseFailed {
		t.Errorf("the scan failed (%s) rather than waiting for the bucket", s.Status.Message)
	}
}

// Setup refuses a bucket given to the scan pods and not the operator.
func TestSetupRefusesHalfABucket(t *testing.T) {
	jobOpts := testOpts
	jobOpts.Bucket = scanjob.BucketOptions{Config: objectstore.Config{Endpoint: "http://127.0.0.1:1", Bucket: "cwac-results"}}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := Setup(mgr, Options{JobOptions: jobOpts, SkipNameValidation: true}); err == nil || !strings.Contains(err.Error(), "results bucket") {
		t.Errorf("Setup: %v", err)
	}
}
