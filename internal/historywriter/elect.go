package historywriter

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Election names the Lease the MCP server's replicas share, so that one of
// them writes the history at a time.
type Election struct {
	Clientset kubernetes.Interface
	Namespace string
	// Lease is the Lease's name.
	Lease string
	// Identity names this replica in the Lease (its pod's name).
	Identity string
	Log      *slog.Logger
}

// Client-go's usual timings: a replica that stops renewing is replaced
// within about 15 seconds.
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

// Run calls run while this replica holds the Lease, with a context that
// ends when it loses it, and stands again after a loss, until ctx ends.
// The store's writer lock stays the last guard: during a handover two
// writers may overlap for a moment, and the second waits or finds the
// scan already stored.
func (e Election) Run(ctx context.Context, run func(context.Context)) {
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: e.Namespace, Name: e.Lease},
		Client:     e.Clientset.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: e.Identity},
	}
	for ctx.Err() == nil {
		var led atomic.Bool // the callbacks run on goroutines of their own
		leaderelection.RunOrDie(ctx, leaderelection.LeaderElectionConfig{
			Lock:            lock,
			Name:            e.Lease,
			LeaseDuration:   leaseDuration,
			RenewDeadline:   renewDeadline,
			RetryPeriod:     retryPeriod,
			ReleaseOnCancel: true,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(ctx context.Context) {
					led.Store(true)
					e.Log.Info("issue history: this replica writes", "lease", e.Lease)
					run(ctx)
				},
				OnStoppedLeading: func() {
					if led.Load() {
						e.Log.Info("issue history: this replica no longer writes", "lease", e.Lease)
					}
				},
			},
		})
	}
}
