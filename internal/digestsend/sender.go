// Package digestsend sends the CwacDigests of the MCP server's namespace:
// at each tick of a digest's schedule, one email to each owner of the
// organisations it covers, gathered from the issue history
// (internal/digest) and sent through the release's SMTP server
// (internal/mailer). What was sent for the period is kept in the digest's
// status, address by address, as soon as the server accepts each, so that
// a restart or another replica taking over sends nobody a second digest
// for the period; a digest the server does not accept is tried again with
// backoff, a bounded number of times.
//
// It runs in the elected writer of the issue history (one process at a
// time) and is driven by the CwacDigest watch and by timers at the next
// tick or retry: nothing polls.
package digestsend

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/backoff"
	"github.com/a11y-dev/cwac-operator/internal/mailer"
	"github.com/a11y-dev/cwac-operator/internal/scanevent"
	"github.com/a11y-dev/cwac-operator/internal/store"
)

// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacdigests,verbs=get;list;watch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacdigests/status,verbs=get;patch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacscanschedules,verbs=list;watch
// +kubebuilder:rbac:groups=cwac.a11y.dev,resources=cwacissuedecisions,verbs=list

// Retry is how a digest the SMTP server did not accept is tried again.
type Retry = backoff.Doubling

// DefaultRetry tries for about four hours: long enough to outlast a mail
// server's restart or a short outage, short enough that the period's
// digest is still news.
var DefaultRetry = Retry{First: time.Minute, Max: time.Hour, Attempts: 9}

// Config is what a Sender needs.
type Config struct {
	// Client reads digests, schedules, scans and decisions, and patches
	// digests' status.
	Client client.Client
	// Informers gives the watch on CwacDigests.
	Informers cache.Informers
	// Clientset records Events; nil: none.
	Clientset kubernetes.Interface
	Store     *store.Store
	// Mail is the SMTP server; nil: digests are not sent (their status
	// says so).
	Mail *mailer.Server
	// DashboardURL is the dashboard's address the digests link to.
	DashboardURL string
	Namespace    string
	Log          *slog.Logger
	// Now is the clock; nil: time.Now.
	Now   func() time.Time
	Retry Retry
}

// Sender sends the namespace's digests.
type Sender struct {
	cfg   Config
	queue workqueue.TypedDelayingInterface[string]
}

// New checks the configuration.
func New(cfg Config) (*Sender, error) {
	switch {
	case cfg.Client == nil || cfg.Informers == nil || cfg.Store == nil || cfg.Log == nil:
		return nil, errors.New("digests: a client, the informers, the store and a log are needed")
	case cfg.Namespace == "":
		return nil, errors.New("digests: no namespace")
	}
	if err := cfg.Retry.Check(); err != nil {
		return nil, fmt.Errorf("digests: %w", err)
	}
	if cfg.Mail != nil {
		if err := cfg.Mail.Validate(); err != nil {
			return nil, fmt.Errorf("digests: the SMTP server: %w", err)
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Sender{cfg: cfg}, nil
}

// Run sends digests until ctx ends: each digest is looked at when it
// changes and at its next tick or retry.
func (s *Sender) Run(ctx context.Context) error {
	s.queue = workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Name: "cwacdigests"})
	defer s.queue.ShutDown()
	inf, err := s.cfg.Informers.GetInformer(ctx, &cwacv1alpha1.CwacDigest{})
	if err != nil {
		return fmt.Errorf("digests: watching CwacDigests: %w", err)
	}
	enqueue := func(obj any) {
		if d, ok := obj.(*cwacv1alpha1.CwacDigest); ok && d.Namespace == s.cfg.Namespace {
			s.queue.Add(d.Name)
		}
	}
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	})
	if err != nil {
		return fmt.Errorf("digests: watching CwacDigests: %w", err)
	}
	defer func() { _ = inf.RemoveEventHandler(reg) }()
	go func() {
		<-ctx.Done()
		s.queue.ShutDown()
	}()
	for {
		name, shutdown := s.queue.Get()
		if shutdown {
			return ctx.Err()
		}
		if wait := s.look(ctx, name); wait > 0 {
			s.queue.AddAfter(name, wait)
		}
		s.queue.Done(name)
	}
}

// look does what one digest needs now and says when to look again (0:
// when it changes).
func (s *Sender) look(ctx context.Context, name string) time.Duration {
	d := &cwacv1alpha1.CwacDigest{}
	if err := s.cfg.Client.Get(ctx, client.ObjectKey{Namespace: s.cfg.Namespace, Name: name}, d); err != nil {
		if apierrors.IsNotFound(err) {
			return 0
		}
		s.cfg.Log.Error("digests: reading a CwacDigest", "digest", name, "err", err)
		return s.cfg.Retry.First
	}
	r := &round{s: s, d: d, saved: d.DeepCopy(), now: s.cfg.Now()}
	wait := r.run(ctx)
	if err := r.save(ctx); err != nil {
		s.cfg.Log.Error("digests: recording a CwacDigest's status", "digest", name, "err", err)
		return s.cfg.Retry.First
	}
	return wait
}

// event records an Event on the digest; failing to is logged.
func (s *Sender) event(ctx context.Context, d *cwacv1alpha1.CwacDigest, warning bool, reason, note string) {
	if s.cfg.Clientset == nil {
		return
	}
	ev := scanevent.About(scanevent.MCPServer, "CwacDigest", d, scanevent.Event{NamePart: "digest", Action: "SendDigest",
		Reason: reason, Warning: warning, Note: note, At: s.cfg.Now()})
	if _, err := s.cfg.Clientset.EventsV1().Events(d.Namespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		s.cfg.Log.Warn("digests: recording an Event", "digest", d.Name, "reason", reason, "err", err)
	}
}

// messageID is the same for one address's digest of one period, however
// often it is tried: a receiver that sees it twice can tell.
func messageID(d *cwacv1alpha1.CwacDigest, to time.Time, email string) string {
	h := sha256.Sum256([]byte(email))
	return fmt.Sprintf("digest.%s.%d.%x@cwac-operator", d.UID, to.Unix(), h[:8])
}

// saveStatus patches the digest's status from saved to what d says now,
// refusing to overwrite a status someone else changed meanwhile (the
// resource version must match): two senders never both record a period.
func saveStatus(ctx context.Context, c client.Client, d, saved *cwacv1alpha1.CwacDigest) error {
	if equality.Semantic.DeepEqual(saved.Status, d.Status) {
		return nil
	}
	if err := c.Status().Patch(ctx, d, client.MergeFromWithOptions(saved, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	d.DeepCopyInto(saved)
	return nil
}
