package main

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/mcpserver"
)

// dashboardDecisions is the dashboard's Decisions: the namespace's
// CwacIssueDecisions from the server's cache, made with the server's own
// client (its account alone may name the decider), after a
// SubjectAccessReview says the signed-in person may create them.
type dashboardDecisions struct {
	source    *mcpserver.DecisionSource
	client    client.Writer
	clientset kubernetes.Interface
}

func (d dashboardDecisions) List(ctx context.Context, namespace string) ([]cwacv1alpha1.CwacIssueDecision, error) {
	return d.source.List(ctx, namespace)
}

// MayDecide asks the API server whether the user, with their groups, may
// create cwacissuedecisions in the namespace: what cwac_decide's caller
// needs.
func (d dashboardDecisions) MayDecide(ctx context.Context, user string, groups []string, namespace string) (bool, error) {
	sar, err := d.clientset.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: user, Groups: groups, ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: "create", Group: cwacv1alpha1.GroupVersion.Group, Resource: "cwacissuedecisions"}},
	}, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("checking permissions: %w", err)
	}
	return sar.Status.Allowed, nil
}

// decisionCacheWait bounds the wait for the cache to show a decision just
// made (normally milliseconds; the page redirected to lists it).
const decisionCacheWait = 5 * time.Second

// Create makes the decision and waits until the cache holds it, so the
// issue page the browser is sent back to shows it. A cache slower than
// decisionCacheWait is no failure: the decision is made, and shows on a
// reload.
func (d dashboardDecisions) Create(ctx context.Context, obj *cwacv1alpha1.CwacIssueDecision) error {
	if err := d.client.Create(ctx, obj); err != nil {
		return err
	}
	key := client.ObjectKeyFromObject(obj)
	_ = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, decisionCacheWait, true, func(ctx context.Context) (bool, error) {
		return d.source.Reader.Get(ctx, key, &cwacv1alpha1.CwacIssueDecision{}) == nil, nil
	})
	return nil
}
