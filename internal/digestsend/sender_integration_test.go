//go:build integration

package digestsend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/rand"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/mailer"
	"github.com/a11y-dev/cwac-operator/internal/store/storetest"
	"github.com/a11y-dev/cwac-operator/internal/testutil/mailpit"
	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"
)

var (
	scheme = runtime.NewScheme()
	cfg    *rest.Config
	k8s    client.Client
)

func TestMain(m *testing.M) {
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(cwacv1alpha1.AddToScheme(scheme))
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets, _ = filepath.Abs("../../bin/k8s/1.37.1-linux-amd64")
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: assets,
	}
	var err error
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "starting envtest (make envtest-assets, or set KUBEBUILDER_ASSETS):", err)
		os.Exit(1)
	}
	if k8s, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = env.Stop()
	os.Exit(code)
}

// clock is the senders' time, moved by the test.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.now = t }

// fixture is a namespace whose schedule declares owners, a CwacDigest in
// it, a real SMTP server, and what a sender needs.
type fixture struct {
	t     *testing.T
	ns    string
	mail  *mailpit.Server
	clock *clock
	cache cache.Cache
	cs    kubernetes.Interface
	cfg   Config
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	ns := "digest-" + rand.String(6)
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	sched := &cwacv1alpha1.CwacScanSchedule{ObjectMeta: metav1.ObjectMeta{Name: "weekly", Namespace: ns},
		Spec: cwacv1alpha1.CwacScanScheduleSpec{Schedule: "0 2 * * SUN", ScanTemplate: cwacv1alpha1.CwacScanTemplate{
			Spec: cwacv1alpha1.CwacScanSpec{Sites: []cwacv1alpha1.Site{
				{URL: "https://health.example/", Organisation: "Health", Owners: []cwacv1alpha1.Owner{
					{Email: "web@health.example"}, {Group: "health-web"}, {Email: "digests@gov.example"}}},
				{URL: "https://education.example/", Organisation: "Education", Owners: []cwacv1alpha1.Owner{{Email: "digests@gov.example"}}},
				{URL: "https://transport.example/", Organisation: "Transport"},
			}}}}}
	if err := k8s.Create(ctx, sched); err != nil {
		t.Fatal(err)
	}
	c, err := cache.New(cfg, cache.Options{Scheme: scheme, DefaultNamespaces: map[string]cache.Config{ns: {}}})
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go func() { _ = c.Start(cctx) }()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mp := mailpit.Start(t, mailpit.RequireStartTLS)
	f := &fixture{t: t, ns: ns, mail: mp, clock: &clock{}, cache: c, cs: cs}
	f.cfg = Config{Client: k8s, Informers: c, Clientset: cs, Store: storetest.OpenSQLite(t),
		Mail: &mailer.Server{Host: mp.Host, Port: mp.Port, Security: mailer.StartTLS, Username: mp.Username, Password: mp.Password,
			From: "digests@cwac.example", RootCAs: mp.RootCAs},
		DashboardURL: "https://dash.example", Namespace: ns, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now: f.clock.Now, Retry: Retry{First: time.Minute, Max: 4 * time.Minute, Attempts: 3}}
	return f
}

// digest makes the namespace's CwacDigest (Mondays 08:00 UTC) and sets
// the clock to when it was made.
func (f *fixture) digest(name string, mutate func(*cwacv1alpha1.CwacDigest)) *cwacv1alpha1.CwacDigest {
	f.t.Helper()
	d := &cwacv1alpha1.CwacDigest{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: cwacv1alpha1.CwacDigestSpec{Schedule: "0 8 * * MON"}}
	if mutate != nil {
		mutate(d)
	}
	if err := k8s.Create(context.Background(), d); err != nil {
		f.t.Fatal(err)
	}
	f.clock.set(d.CreationTimestamp.Time)
	return d
}

// sender is a new sender (as after a restart) with the fixture's settings,
// changed by mutate.
func (f *fixture) sender(mutate func(*Config)) *Sender {
	f.t.Helper()
	c := f.cfg
	if c.Mail != nil {
		m := *c.Mail
		c.Mail = &m
	}
	if mutate != nil {
		mutate(&c)
	}
	s, err := New(c)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// get reads the digest.
func (f *fixture) get(name string) *cwacv1alpha1.CwacDigest {
	f.t.Helper()
	d := &cwacv1alpha1.CwacDigest{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: f.ns, Name: name}, d); err != nil {
		f.t.Fatal(err)
	}
	return d
}

// received are the addresses mailpit received messages for, sorted.
func (f *fixture) received() []string {
	f.t.Helper()
	msgs, err := f.mail.Messages()
	if err != nil {
		f.t.Fatal(err)
	}
	var to []string
	for _, m := range msgs {
		for _, a := range m.To {
			to = append(to, a.Address)
		}
	}
	slices.Sort(to)
	return to
}

func sentReason(d *cwacv1alpha1.CwacDigest) string {
	if c := meta.FindStatusCondition(d.Status.Conditions, cwacv1alpha1.ConditionSent); c != nil {
		return c.Reason
	}
	return ""
}

// nextMonday is the first Monday 08:00 UTC after t.
func nextMonday(t time.Time) time.Time {
	t = t.UTC()
	day := time.Date(t.Year(), t.Month(), t.Day(), 8, 0, 0, 0, time.UTC)
	for day.Weekday() != time.Monday || !day.After(t) {
		day = day.AddDate(0, 0, 1)
	}
	return day
}

// TestDigestOncePerPeriodAcrossRestarts: at the tick, each email owner of
// the namespace's organisations receives one digest from a real SMTP
// server (the address owning two organisations, one message naming both;
// a group owner and an organisation without owners, none); a sender
// started again in the same period (a restart, or another replica) sends
// nothing more; the next tick sends the next period's.
func TestDigestOncePerPeriodAcrossRestarts(t *testing.T) {
	f := newFixture(t)
	made := f.digest("weekly", nil)
	ctx, cancel := context.WithCancel(context.Background())
	first := f.sender(nil)
	done := make(chan error, 1)
	go func() { done <- first.Run(ctx) }()

	// Before the tick: nothing sent, the next tick recorded.
	tick := nextMonday(made.CreationTimestamp.Time)
	wait.For(t, "the next digest time", 30*time.Second, func() (bool, error) {
		d := f.get("weekly")
		return d.Status.NextDigestAt != nil && d.Status.NextDigestAt.Time.Equal(tick), nil
	})
	if got := f.received(); len(got) != 0 {
		t.Fatalf("sent before the tick: %v", got)
	}
	// An applied decision of Health due for review before the next digest,
	// and one of Education not applied: only the first is asked about.
	f.decision("health-due", "Health", true, tick.AddDate(0, 0, 3))
	f.decision("education-refused", "Education", false, tick.AddDate(0, 0, 3))
	// At the tick (the watch brings any change of the digest; here a label).
	f.clock.set(tick.Add(30 * time.Second))
	touch(t, f.get("weekly"))
	wait.For(t, "the period's digests", time.Minute, func() (bool, error) { return sentReason(f.get("weekly")) == cwacv1alpha1.ReasonSent, nil })
	want := []string{"digests@gov.example", "web@health.example"}
	if got := f.received(); !slices.Equal(got, want) {
		t.Fatalf("received by %v, want %v", got, want)
	}
	d := f.get("weekly")
	if !d.Status.Period.From.Time.Equal(made.CreationTimestamp.Time) || !d.Status.Period.To.Time.Equal(tick) {
		t.Errorf("period %v–%v, want %v–%v", d.Status.Period.From, d.Status.Period.To, made.CreationTimestamp, tick)
	}
	for _, rc := range d.Status.Recipients {
		if rc.SentAt == nil || rc.Attempts != 0 {
			t.Errorf("recipient %+v: want sent at the first try", rc)
		}
	}
	msgs, _ := f.mail.Messages()
	for _, m := range msgs {
		if m.To[0].Address == "digests@gov.example" && !strings.Contains(m.Subject, "2 organisations") {
			t.Errorf("the owner of two organisations got %q, want one digest of both", m.Subject)
		}
		if !strings.Contains(m.Text, "the reason of health-due") || strings.Contains(m.Text, "the reason of education-refused") {
			t.Errorf("message %q: the decisions due for review are not Health's applied one alone:\n%s", m.Subject, m.Text)
		}
		if !strings.Contains(m.Text, "https://dash.example/") || !strings.HasSuffix(m.MessageID, "@cwac-operator") {
			t.Errorf("message %q: no dashboard link, or Message-ID %q not the digest's", m.Subject, m.MessageID)
		}
	}

	// A restart in the same period: the new sender looks, and sends nothing.
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("the first sender stopped with %v", err)
	}
	again := f.sender(nil)
	if after := again.look(context.Background(), "weekly"); after <= 0 || after > 7*24*time.Hour {
		t.Errorf("after a restart the digest looks again in %v, want at the next tick", after)
	}
	if got := f.received(); !slices.Equal(got, want) {
		t.Fatalf("after a restart, received by %v, want still %v", got, want)
	}

	// The next tick: the next period's, once each.
	f.clock.set(tick.AddDate(0, 0, 7).Add(time.Second))
	again.look(context.Background(), "weekly")
	again.look(context.Background(), "weekly")
	if got := f.received(); len(got) != 4 {
		t.Fatalf("after the second tick, received by %v, want each address twice", got)
	}
	d = f.get("weekly")
	if !d.Status.Period.From.Time.Equal(tick) || sentReason(d) != cwacv1alpha1.ReasonSent {
		t.Errorf("second period from %v (%s), want from %v, Sent", d.Status.Period.From, sentReason(d), tick)
	}
}

// TestDigestRetriedWithBackoff: digests the server refuses (a wrong
// password) are recorded with their error and retried after the backoff;
// a sender started again with the right settings sends them at the retry
// time, once; one refused at every try is given up with a Warning.
func TestDigestRetriedWithBackoff(t *testing.T) {
	f := newFixture(t)
	made := f.digest("weekly", nil)
	tick := nextMonday(made.CreationTimestamp.Time)
	f.clock.set(tick.Add(time.Second))
	wrong := f.sender(func(c *Config) { c.Mail.Password = "wrong" })
	if after := wrong.look(context.Background(), "weekly"); after != time.Minute-time.Second && after != time.Minute {
		t.Errorf("after a refusal the digest looks again in %v, want the first backoff (1m)", after)
	}
	d := f.get("weekly")
	if sentReason(d) != cwacv1alpha1.ReasonRetrying || len(f.received()) != 0 {
		t.Fatalf("after a refusal: %s, received %v; want Retrying, nothing", sentReason(d), f.received())
	}
	for _, rc := range d.Status.Recipients {
		if rc.Attempts != 1 || rc.NextAttemptAt == nil || !strings.Contains(strings.ToLower(rc.LastError), "authentication") {
			t.Errorf("recipient %+v: want one attempt, its authentication error and a retry time", rc)
		}
	}
	// Before the retry time nothing is tried.
	wrong.look(context.Background(), "weekly")
	if d := f.get("weekly"); d.Status.Recipients[0].Attempts != 1 {
		t.Errorf("tried before the retry time: %+v", d.Status.Recipients[0])
	}
	// The right password, at the retry time: sent once.
	f.clock.set(tick.Add(2 * time.Minute))
	right := f.sender(nil)
	right.look(context.Background(), "weekly")
	right.look(context.Background(), "weekly")
	if got := f.received(); len(got) != 2 || sentReason(f.get("weekly")) != cwacv1alpha1.ReasonSent {
		t.Fatalf("after the retry: received by %v (%s), want each address once, Sent", got, sentReason(f.get("weekly")))
	}

	// Refused at every try of the next period: given up, with a Warning.
	f.clock.set(tick.AddDate(0, 0, 7).Add(time.Second))
	for range 3 {
		wrong.look(context.Background(), "weekly")
		f.clock.set(f.clock.Now().Add(5 * time.Minute))
	}
	d = f.get("weekly")
	if sentReason(d) != cwacv1alpha1.ReasonSendFailed {
		t.Errorf("after every try refused: %s, want SendFailed", sentReason(d))
	}
	for _, rc := range d.Status.Recipients {
		if rc.Attempts != 3 || rc.NextAttemptAt != nil || rc.SentAt != nil {
			t.Errorf("recipient %+v: want three attempts, no further try", rc)
		}
	}
	wait.For(t, "the Warning Event", 30*time.Second, func() (bool, error) {
		evs, err := f.cs.EventsV1().Events(f.ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == cwacv1alpha1.ReasonSendFailed && e.Type == corev1.EventTypeWarning && e.Regarding.Kind == "CwacDigest" {
				return true, nil
			}
		}
		return false, nil
	})
}

// TestDigestNotSent: the reasons nothing is sent are said in the status.
func TestDigestNotSent(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		name   string
		digest func(*cwacv1alpha1.CwacDigest)
		sender func(*Config)
		reason string
	}{
		{"no SMTP server", nil, func(c *Config) { c.Mail = nil }, cwacv1alpha1.ReasonMailNotConfigured},
		{"suspended", func(d *cwacv1alpha1.CwacDigest) { d.Spec.Suspend = true }, nil, cwacv1alpha1.ReasonSuspended},
		{"unknown time zone", func(d *cwacv1alpha1.CwacDigest) { d.Spec.TimeZone = "Mars/Olympus_Mons" }, nil, cwacv1alpha1.ReasonInvalidTimeZone},
		{"never fires", func(d *cwacv1alpha1.CwacDigest) { d.Spec.Schedule = "0 0 31 2 *" }, nil, cwacv1alpha1.ReasonInvalidSchedule},
		{"no owner with an address", func(d *cwacv1alpha1.CwacDigest) { d.Spec.Organisations = []string{"Transport"} }, nil, cwacv1alpha1.ReasonNoRecipients},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := strings.ToLower(strings.ReplaceAll(c.name, " ", "-"))
			made := f.digest(name, c.digest)
			f.clock.set(nextMonday(made.CreationTimestamp.Time).Add(time.Second))
			f.sender(c.sender).look(context.Background(), name)
			if got := sentReason(f.get(name)); got != c.reason {
				t.Errorf("Sent reason %q, want %q", got, c.reason)
			}
		})
	}
	if got := f.received(); len(got) != 0 {
		t.Errorf("received by %v, want nobody", got)
	}
}

// decision makes a rule decision of the organisation with a review date,
// applied (as the operator would set it) or not.
func (f *fixture) decision(name, org string, applied bool, reviewBy time.Time) {
	f.t.Helper()
	d := &cwacv1alpha1.CwacIssueDecision{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: f.ns},
		Spec: cwacv1alpha1.CwacIssueDecisionSpec{Organisation: org, Kind: cwacv1alpha1.DecisionAccepted, Reason: "the reason of " + name,
			Rule: "image-alt", ReviewBy: &metav1.Time{Time: reviewBy}}}
	if err := k8s.Create(context.Background(), d); err != nil {
		f.t.Fatal(err)
	}
	status := metav1.ConditionFalse
	if applied {
		status = metav1.ConditionTrue
	}
	d.Status.Conditions = []metav1.Condition{{Type: cwacv1alpha1.ConditionApplied, Status: status, Reason: cwacv1alpha1.ReasonEntitled,
		Message: "test", ObservedGeneration: d.Generation, LastTransitionTime: metav1.Now()}}
	if err := k8s.Status().Update(context.Background(), d); err != nil {
		f.t.Fatal(err)
	}
}

// touch changes a label of the digest, so that its watch brings it.
func touch(t *testing.T, d *cwacv1alpha1.CwacDigest) {
	t.Helper()
	patch := client.MergeFrom(d.DeepCopy())
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	d.Labels["touched"] = rand.String(4)
	if err := k8s.Patch(context.Background(), d, patch); err != nil {
		t.Fatal(err)
	}
}
