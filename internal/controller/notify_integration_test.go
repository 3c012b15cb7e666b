//go:build integration

package controller

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/notify"
)

const hookKey = "hmac-key-for-tests"

// hookServer is a receiver on loopback: it records every request, checks
// webhook signatures independently of the sender, and answers status.
type hookServer struct {
	*httptest.Server
	mu       sync.Mutex
	got      []received
	status   int
	badSigns int
}

type received struct {
	delivery, event string
	at              time.Time
	body            []byte
}

func newHook(t *testing.T, status int) *hookServer {
	h := &hookServer{status: status}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		h.mu.Lock()
		defer h.mu.Unlock()
		if sig := r.Header.Get(notify.HeaderSignature); sig != "" &&
			!notify.Verify([]byte(hookKey), r.Header.Get(notify.HeaderTimestamp), sig, body, time.Now(), 5*time.Minute) {
			h.badSigns++
		}
		h.got = append(h.got, received{delivery: r.Header.Get(notify.HeaderDelivery), event: r.Header.Get(notify.HeaderEvent), at: time.Now(), body: body})
		w.WriteHeader(h.status)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hookServer) requests() []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]received(nil), h.got...)
}

// events lists the events received, in order.
func (h *hookServer) events() []string {
	reqs := h.requests()
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, r.event)
	}
	return out
}

// hookSecret stores receivers' URLs (with a secret path, which must never
// show in status or Events) and the HMAC key.
func hookSecret(t *testing.T, ns string, urls map[string]string) {
	t.Helper()
	data := map[string][]byte{"hmac": []byte(hookKey)}
	for k, v := range urls {
		data[k] = []byte(v + "/hooks/T0/B0/secretpath\n")
	}
	if err := k8s.Create(ctxT(t), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hooks"}, Data: data}); err != nil {
		t.Fatal(err)
	}
}

func rcv(name string, typ cwacv1alpha1.ReceiverType, events ...cwacv1alpha1.NotificationEvent) cwacv1alpha1.NotificationReceiver {
	r := cwacv1alpha1.NotificationReceiver{Name: name, Type: typ, Events: events, URLSecretRef: cwacv1alpha1.SecretKeyRef{Name: "hooks", Key: name}}
	if typ == cwacv1alpha1.ReceiverWebhook {
		r.HMACSecretRef = &cwacv1alpha1.SecretKeyRef{Name: "hooks", Key: "hmac"}
	}
	return r
}

// loopbackNotify opens loopback to receivers, and http, as a test machine needs.
func loopbackNotify() NotifyOptions {
	return NotifyOptions{AllowCIDRs: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, AllowHTTP: true, Timeout: 2 * time.Second,
		Retry: notify.Retry{First: 200 * time.Millisecond, MaxGap: 400 * time.Millisecond, Window: 2 * time.Second}}
}

// startNotifier runs the notification controller alone, with the
// operator's cache, so the tests set scans' endings by hand.
func startNotifier(t *testing.T, o NotifyOptions) (stop func()) {
	t.Helper()
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{ByObject: CacheByObject(), NewInformer: NewInformer},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := SetupNotifications(mgr, o, nil, true); err != nil {
		t.Fatal(err)
	}
	return runManager(t, mgr)
}

// endScan creates a scan and sets its ending as the scan controller would.
func endScan(t *testing.T, ns, name string, spec cwacv1alpha1.CwacScanSpec, mutate func(*cwacv1alpha1.CwacScan)) *cwacv1alpha1.CwacScan {
	t.Helper()
	scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
	mutate(scan) // metadata: owners, annotations
	status := scan.Status
	if err := k8s.Create(ctxT(t), scan); err != nil {
		t.Fatalf("creating %s: %v", name, err)
	}
	scan.Status = status
	now := metav1.Now()
	scan.Status.CompletionTime = &now
	if err := k8s.Status().Update(ctxT(t), scan); err != nil {
		t.Fatalf("finishing %s: %v", name, err)
	}
	return scan
}

func completeWith(critical int64, crossed bool) func(*cwacv1alpha1.CwacScan) {
	return func(s *cwacv1alpha1.CwacScan) {
		s.Status.Phase = cwacv1alpha1.PhaseComplete
		s.Status.Summary = &cwacv1alpha1.ScanSummary{TotalIssues: critical, PagesScanned: 4, UrlsScanned: 4, IssuesByImpact: map[string]int64{"critical": critical}}
		c := metav1.Condition{Type: cwacv1alpha1.ConditionThresholdsMet, Status: metav1.ConditionTrue, Reason: cwacv1alpha1.ReasonWithinThresholds, Message: "within"}
		if crossed {
			c = metav1.Condition{Type: cwacv1alpha1.ConditionThresholdsMet, Status: metav1.ConditionFalse, Reason: cwacv1alpha1.ReasonThresholdsCrossed,
				Message: fmt.Sprintf("critical issues %d > 0", critical)}
		}
		meta.SetStatusCondition(&s.Status.Conditions, c)
	}
}

func failedWith(s *cwacv1alpha1.CwacScan) {
	s.Status.Phase = cwacv1alpha1.PhaseFailed
	s.Status.Failure = &cwacv1alpha1.ScanFailure{Reason: cwacv1alpha1.ReasonCWACExitedNonZero, ExitCode: ptr.To[int32](1), Cause: "ValueError: boom"}
}

func notifySpec(receivers ...cwacv1alpha1.NotificationReceiver) cwacv1alpha1.CwacScanSpec {
	s := simpleSpec()
	s.Notifications = &cwacv1alpha1.Notifications{Receivers: receivers}
	return s
}

// waitSettled waits until every delivery of the scan is settled and
// returns the scan.
func waitSettled(t *testing.T, ns, name string) *cwacv1alpha1.CwacScan {
	t.Helper()
	var scan *cwacv1alpha1.CwacScan
	waitFor(t, name+"'s notifications settled", func() (bool, error) {
		scan = getScan(t, ns, name)
		if scan.Status.Notifications == nil {
			return false, fmt.Errorf("not decided")
		}
		return !scan.NotificationsPending(), fmt.Errorf("deliveries %+v", scan.Status.Notifications.Deliveries)
	})
	return scan
}

func delivered(t *testing.T, scan *cwacv1alpha1.CwacScan, want ...string) {
	t.Helper()
	got := make([]string, 0, len(scan.Status.Notifications.Deliveries))
	for _, d := range scan.Status.Notifications.Deliveries {
		got = append(got, fmt.Sprintf("%s/%s/%s", d.Receiver, d.Event, d.State))
		if d.State == cwacv1alpha1.DeliverySent && (d.SentTime == nil || d.Attempts < 1) {
			t.Errorf("%s/%s sent without a time or an attempt: %+v", d.Receiver, d.Event, d)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s deliveries %v, want %v", scan.Name, got, want)
	}
}

func scanEvents(t *testing.T, scan *cwacv1alpha1.CwacScan) []string {
	t.Helper()
	list := &eventsv1.EventList{}
	if err := k8s.List(ctxT(t), list, client.InNamespace(scan.Namespace)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		if e.Regarding.UID == scan.UID {
			out = append(out, eventLine(e))
		}
	}
	return out
}

func noSecretIn(t *testing.T, scan *cwacv1alpha1.CwacScan) {
	t.Helper()
	status, _ := json.Marshal(scan.Status)
	for _, where := range append([]string{string(status)}, scanEvents(t, scan)...) {
		if strings.Contains(where, "secretpath") || strings.Contains(where, hookKey) {
			t.Errorf("a secret leaked: %s", where)
		}
	}
}

// TestNotifyScanFailedOnceAcrossRestarts: a scan that fails through the
// whole operator is reported once, signed, and a restarted operator
// neither repeats it nor stops reporting new ones.
func TestNotifyScanFailedOnceAcrossRestarts(t *testing.T) {
	ns := newNamespace(t)
	hook := newHook(t, http.StatusOK)
	hookSecret(t, ns, map[string]string{"ops": hook.URL})
	opts := Options{JobOptions: testOpts, Policy: testPolicy(), Notify: loopbackNotify()}
	stop := startManagerWith(t, opts)

	createScan(t, ns, "fails", notifySpec(rcv("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed, cwacv1alpha1.EventNewIssues)))
	finishJob(t, waitJob(t, ns, "fails"), false, "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	waitPhase(t, ns, "fails", cwacv1alpha1.PhaseFailed)
	scan := waitSettled(t, ns, "fails")
	delivered(t, scan, "ops/ScanFailed/Sent")
	if c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionNotificationsDelivered); c == nil ||
		c.Status != metav1.ConditionTrue || c.Reason != cwacv1alpha1.ReasonDelivered {
		t.Errorf("condition %+v", c)
	}
	got := hook.requests()
	if len(got) != 1 || got[0].event != "ScanFailed" || got[0].delivery != string(scan.UID)+"/ops/ScanFailed" || hook.badSigns != 0 {
		t.Fatalf("received %d requests (bad signatures %d): %+v", len(got), hook.badSigns, got)
	}
	var p notify.Payload
	if err := json.Unmarshal(got[0].body, &p); err != nil {
		t.Fatal(err)
	}
	if p.SchemaVersion != notify.SchemaVersion || p.Scan.Name != "fails" || p.Failure == nil || p.Failure.Reason == "" {
		t.Errorf("payload %s", got[0].body)
	}

	// Restart twice: nothing repeats, and a new failure still goes out.
	stop()
	stop = startManagerWith(t, opts)
	time.Sleep(time.Second)
	stop()
	startManagerWith(t, opts)
	createScan(t, ns, "fails-too", notifySpec(rcv("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed)))
	finishJob(t, waitJob(t, ns, "fails-too"), false, "BackoffLimitExceeded", "Job has reached the specified backoff limit")
	waitSettled(t, ns, "fails-too")
	time.Sleep(500 * time.Millisecond)
	byDelivery := map[string]int{}
	for _, r := range hook.requests() {
		byDelivery[r.delivery]++
	}
	if len(byDelivery) != 2 || byDelivery[string(scan.UID)+"/ops/ScanFailed"] != 1 {
		t.Errorf("deliveries after restarts: %v", byDelivery)
	}
	noSecretIn(t, getScan(t, ns, "fails"))
}

// TestNotifyThresholdsCrossedAndRecovered: three ticks of a schedule,
// within, crossed, within: one ThresholdsCrossed, then one
// ThresholdsRecovered, to a webhook and a Slack receiver.
func TestNotifyThresholdsCrossedAndRecovered(t *testing.T) {
	ns := newNamespace(t)
	hook, slack := newHook(t, http.StatusOK), newHook(t, http.StatusOK)
	hookSecret(t, ns, map[string]string{"ops": hook.URL, "chat": slack.URL})
	startNotifier(t, loopbackNotify())
	sched := &cwacv1alpha1.CwacScanSchedule{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "nightly"},
		Spec: cwacv1alpha1.CwacScanScheduleSpec{Schedule: "0 2 * * *", ScanTemplate: cwacv1alpha1.CwacScanTemplate{Spec: simpleSpec()}}}
	if err := k8s.Create(ctxT(t), sched); err != nil {
		t.Fatal(err)
	}
	events := []cwacv1alpha1.NotificationEvent{cwacv1alpha1.EventThresholdsCrossed, cwacv1alpha1.EventThresholdsRecovered}
	spec := notifySpec(rcv("ops", cwacv1alpha1.ReceiverWebhook, events...), rcv("chat", cwacv1alpha1.ReceiverSlack, events...))
	spec.Thresholds = &cwacv1alpha1.Thresholds{MaxIssuesByImpact: map[string]int64{"critical": 0}}
	tick := func(name string, n int, baseline string, critical int64) *cwacv1alpha1.CwacScan {
		s := spec
		s.Baseline = baseline
		endScan(t, ns, name, s, func(scan *cwacv1alpha1.CwacScan) {
			scan.Annotations = map[string]string{cwacv1alpha1.AnnotationScheduledTime: fmt.Sprintf("2026-11-2%dT02:00:00Z", n)}
			scan.OwnerReferences = []metav1.OwnerReference{{APIVersion: cwacv1alpha1.GroupVersion.String(), Kind: "CwacScanSchedule",
				Name: sched.Name, UID: sched.UID, Controller: ptr.To(true)}}
			completeWith(critical, critical > 0)(scan)
		})
		return waitSettled(t, ns, name)
	}
	first := tick("nightly-1", 1, "", 0)
	delivered(t, first)
	if c := meta.FindStatusCondition(first.Status.Conditions, cwacv1alpha1.ConditionNotificationsDelivered); c == nil ||
		c.Reason != cwacv1alpha1.ReasonNothingToSend {
		t.Errorf("first tick condition %+v", c)
	}
	second := tick("nightly-2", 2, "nightly-1", 3)
	delivered(t, second, "ops/ThresholdsCrossed/Sent", "chat/ThresholdsCrossed/Sent")
	if second.Status.Notifications.ComparedWith != "nightly-1" {
		t.Errorf("compared with %q", second.Status.Notifications.ComparedWith)
	}
	third := tick("nightly-3", 3, "nightly-2", 0)
	delivered(t, third, "ops/ThresholdsRecovered/Sent", "chat/ThresholdsRecovered/Sent")
	fourth := tick("nightly-4", 4, "nightly-3", 0)
	delivered(t, fourth)

	for name, h := range map[string]*hookServer{"webhook": hook, "slack": slack} {
		if got := strings.Join(h.events(), " "); got != "ThresholdsCrossed ThresholdsRecovered" {
			t.Errorf("%s received %q", name, got)
		}
	}
	crossedBody := hook.requests()[0].body
	if !strings.Contains(string(crossedBody), `"crossed":["critical issues 3 \u003e 0"]`) {
		t.Errorf("webhook payload does not name the threshold: %s", crossedBody)
	}
	var msg struct {
		Text   string
		Blocks []map[string]any
	}
	if err := json.Unmarshal(slack.requests()[0].body, &msg); err != nil || len(msg.Blocks) == 0 || !strings.Contains(msg.Text, "crossed its thresholds") {
		t.Errorf("slack message %s (%v)", slack.requests()[0].body, err)
	}
}

// TestNotifyNewIssuesAgainstBaseline: a Teams receiver gets NewIssues
// with the counts by organisation and impact.
func TestNotifyNewIssuesAgainstBaseline(t *testing.T) {
	ns := newNamespace(t)
	teams := newHook(t, http.StatusOK)
	hookSecret(t, ns, map[string]string{"teams": teams.URL})
	startNotifier(t, loopbackNotify())
	endScan(t, ns, "base", simpleSpec(), completeWith(1, false))
	spec := notifySpec(rcv("teams", cwacv1alpha1.ReceiverTeams, cwacv1alpha1.EventNewIssues))
	spec.Baseline = "base"
	endScan(t, ns, "next", spec, func(s *cwacv1alpha1.CwacScan) {
		completeWith(5, false)(s)
		s.Status.Summary.Diff = &cwacv1alpha1.ScanDiff{Baseline: "base", New: 4, NewByImpact: map[string]int64{"critical": 4},
			ByOrganisation: []cwacv1alpha1.OrganisationDiff{{Organisation: "Ministry of Tests", New: 4}}}
	})
	delivered(t, waitSettled(t, ns, "next"), "teams/NewIssues/Sent")
	got := teams.requests()
	if len(got) != 1 {
		t.Fatalf("teams got %d requests", len(got))
	}
	body := string(got[0].body)
	// Outside a schedule, the baseline is the scan before: failing after
	// a failed baseline is no news.
	endScan(t, ns, "broken-base", simpleSpec(), failedWith)
	again := notifySpec(rcv("teams", cwacv1alpha1.ReceiverTeams, cwacv1alpha1.EventScanFailed))
	again.Baseline = "broken-base"
	endScan(t, ns, "broken-again", again, failedWith)
	if s := waitSettled(t, ns, "broken-again"); len(s.Status.Notifications.Deliveries) != 0 || s.Status.Notifications.ComparedWith != "broken-base" {
		t.Errorf("failing after a failed baseline: %+v", s.Status.Notifications)
	}
	for _, want := range []string{
		`"type":"message"`, "application/vnd.microsoft.card.adaptive", "4 new issues against base", "Ministry of Tests: 4 new", "critical 4",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("teams card lacks %q: %s", want, body)
		}
	}
}

// TestNotifyReceiverDown: a receiver that answers 503 is retried with
// backoff, then given up with a Warning Event and the condition; the
// other receiver got its event at once.
func TestNotifyReceiverDown(t *testing.T) {
	ns := newNamespace(t)
	down, up := newHook(t, http.StatusServiceUnavailable), newHook(t, http.StatusOK)
	hookSecret(t, ns, map[string]string{"down": down.URL, "up": up.URL})
	startNotifier(t, loopbackNotify())
	began := time.Now()
	endScan(t, ns, "broken", notifySpec(rcv("down", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed),
		rcv("up", cwacv1alpha1.ReceiverSlack, cwacv1alpha1.EventScanFailed)), failedWith)
	waitFor(t, "the working receiver's event", func() (bool, error) { return len(up.requests()) == 1, nil })
	if d := up.requests()[0].at.Sub(began); d > 3*time.Second {
		t.Errorf("the working receiver waited %s", d)
	}
	scan := waitSettled(t, ns, "broken")
	delivered(t, scan, "down/ScanFailed/Failed", "up/ScanFailed/Sent")
	attempts := len(down.requests())
	if d := scan.Status.Notifications.Deliveries[0]; attempts < 3 || int(d.Attempts) != attempts || !strings.Contains(d.LastError, "HTTP 503") {
		t.Errorf("down: %d requests, record %+v", attempts, d)
	}
	c := meta.FindStatusCondition(scan.Status.Conditions, cwacv1alpha1.ConditionNotificationsDelivered)
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != cwacv1alpha1.ReasonDeliveryFailed || !strings.Contains(c.Message, `receiver "down"`) {
		t.Errorf("condition %+v", c)
	}
	waitFor(t, "a DeliveryFailed Warning", func() (bool, error) {
		evs := strings.Join(scanEvents(t, scan), "\n")
		return strings.Contains(evs, `Warning/DeliveryFailed: receiver "down", event ScanFailed: the receiver answered HTTP 503`), fmt.Errorf("events: %s", evs)
	})
	if s := getScan(t, ns, "broken"); s.Status.Phase != cwacv1alpha1.PhaseFailed || s.Status.Failure.Reason != cwacv1alpha1.ReasonCWACExitedNonZero {
		t.Errorf("the scan's own result changed: %s %+v", s.Status.Phase, s.Status.Failure)
	}
	time.Sleep(time.Second)
	if n := len(down.requests()); n != attempts {
		t.Errorf("retried after giving up: %d then %d", attempts, n)
	}
	noSecretIn(t, scan)
}

// TestNotifyRefusedAndBadInput: with loopback not opened, a receiver on
// loopback and one at the metadata address get nothing; a missing Secret
// is said at once and recovers when the Secret appears.
func TestNotifyRefusedAndBadInput(t *testing.T) {
	ns := newNamespace(t)
	hook := newHook(t, http.StatusOK)
	hookSecret(t, ns, map[string]string{"local": hook.URL, "metadata": "http://169.254.169.254"})
	o := loopbackNotify()
	o.AllowCIDRs = nil // the default policy: loopback and link-local refused
	stop := startNotifier(t, o)
	endScan(t, ns, "refused", notifySpec(rcv("local", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed),
		rcv("metadata", cwacv1alpha1.ReceiverTeams, cwacv1alpha1.EventScanFailed)), failedWith)
	scan := waitSettled(t, ns, "refused")
	delivered(t, scan, "local/ScanFailed/Failed", "metadata/ScanFailed/Failed")
	for _, d := range scan.Status.Notifications.Deliveries {
		if d.Attempts != 1 || !strings.Contains(d.LastError, "refused by the target policy") {
			t.Errorf("%s: %+v", d.Receiver, d)
		}
	}
	if n := len(hook.requests()); n != 0 {
		t.Errorf("a refused receiver got %d requests", n)
	}
	waitFor(t, "ReceiverRefused Warnings", func() (bool, error) {
		evs := strings.Join(scanEvents(t, scan), "\n")
		return strings.Contains(evs, `Warning/ReceiverRefused: receiver "local"`) && strings.Contains(evs, `Warning/ReceiverRefused: receiver "metadata"`) &&
			strings.Contains(evs, "(loopback)") && strings.Contains(evs, "(link-local)"), fmt.Errorf("events: %s", evs)
	})
	noSecretIn(t, scan)

	// A Secret that does not exist yet: said at once, delivered once it exists.
	stop()
	open := newHook(t, http.StatusOK)
	ns2 := newNamespace(t)
	startNotifier(t, NotifyOptions{AllowCIDRs: loopbackNotify().AllowCIDRs, AllowHTTP: true,
		Retry: notify.Retry{First: 200 * time.Millisecond, MaxGap: 400 * time.Millisecond, Window: time.Minute}})
	late := endScan(t, ns2, "late", notifySpec(rcv("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed)), failedWith)
	waitFor(t, "SecretNotFound", func() (bool, error) {
		s := getScan(t, ns2, "late")
		c := meta.FindStatusCondition(s.Status.Conditions, cwacv1alpha1.ConditionNotificationsDelivered)
		return c != nil && c.Reason == cwacv1alpha1.ReasonSecretNotFound && strings.Contains(c.Message, `receiver "ops"`) &&
			strings.Contains(strings.Join(scanEvents(t, late), "\n"), "Warning/SecretNotFound"), fmt.Errorf("condition %+v", c)
	})
	hookSecret(t, ns2, map[string]string{"ops": open.URL})
	delivered(t, waitSettled(t, ns2, "late"), "ops/ScanFailed/Sent")
	if n := len(open.requests()); n != 1 {
		t.Errorf("late receiver got %d requests", n)
	}
}

// TestNotifyCRDValidation: the API server refuses bad receivers with a
// message naming the field.
func TestNotifyCRDValidation(t *testing.T) {
	ns := newNamespace(t)
	ok := rcv("ops", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed)
	slack := rcv("chat", cwacv1alpha1.ReceiverSlack, cwacv1alpha1.EventScanFailed)
	slack.HMACSecretRef = &cwacv1alpha1.SecretKeyRef{Name: "hooks", Key: "hmac"}
	unknown := rcv("odd", cwacv1alpha1.ReceiverWebhook, "ScanExploded")
	badType := rcv("pager", "pagerduty", cwacv1alpha1.EventScanFailed)
	drop := rcv("drop", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed)
	drop.ScoreDrop = ptr.To[int32](3)
	manyOrgs := rcv("orgs", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed)
	for i := range 51 {
		manyOrgs.Organisations = append(manyOrgs.Organisations, fmt.Sprintf("Org %d", i))
	}
	emptyOwner := rcv("owners", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed)
	emptyOwner.Owners = []string{""}
	twiceOwned := rcv("twice", cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed)
	twiceOwned.Owners = []string{"web-team", "web-team"}
	eleven := make([]cwacv1alpha1.NotificationReceiver, 0, 11)
	for i := range 11 {
		eleven = append(eleven, rcv(fmt.Sprintf("r%d", i), cwacv1alpha1.ReceiverWebhook, cwacv1alpha1.EventScanFailed))
	}
	for name, tc := range map[string]struct {
		receivers []cwacv1alpha1.NotificationReceiver
		says      string
	}{
		"names unique":     {[]cwacv1alpha1.NotificationReceiver{ok, ok}, "Duplicate value"},
		"hmac on slack":    {[]cwacv1alpha1.NotificationReceiver{slack}, "hmacSecretRef signs the generic JSON payload"},
		"unknown event":    {[]cwacv1alpha1.NotificationReceiver{unknown}, "ScanExploded"},
		"unknown type":     {[]cwacv1alpha1.NotificationReceiver{badType}, "pagerduty"},
		"scoreDrop unused": {[]cwacv1alpha1.NotificationReceiver{drop}, "scoreDrop applies to the ScoreDropped event"},
		"eleven receivers": {eleven, "must have at most 10 items"},
		"51 organisations": {[]cwacv1alpha1.NotificationReceiver{manyOrgs}, "organisations: Too many: 51: must have at most 50 items"},
		"an empty owner":   {[]cwacv1alpha1.NotificationReceiver{emptyOwner}, "owners[0]"},
		"an owner twice":   {[]cwacv1alpha1.NotificationReceiver{twiceOwned}, "Duplicate value"},
		"no receivers":     {[]cwacv1alpha1.NotificationReceiver{}, "receivers"},
	} {
		scan := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bad"}, Spec: notifySpec(tc.receivers...)}
		err := k8s.Create(ctxT(t), scan)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.says)
			_ = k8s.Delete(ctxT(t), scan)
		}
	}
	good := &cwacv1alpha1.CwacScan{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "good"},
		Spec: notifySpec(ok, rcv("chat", cwacv1alpha1.ReceiverTeams, cwacv1alpha1.EventScoreDropped, cwacv1alpha1.EventNewIssues))}
	good.Spec.Notifications.Receivers[1].ScoreDrop = ptr.To[int32](10)
	good.Spec.Notifications.Receivers[1].Organisations = []string{"Ministry of Examples"}
	good.Spec.Notifications.Receivers[1].Owners = []string{"web@examples.govt.nz", "web-team"}
	if err := k8s.Create(ctxT(t), good); err != nil {
		t.Errorf("a valid scan was refused: %v", err)
	}
}
