// Package rbacwait waits, in tests, until the API server's authorizer
// allows what a just-created Role and RoleBinding grant. The authorizer
// learns of RBAC objects from its own watch, a moment after the create
// returns, so a request made at once may still be refused.
package rbacwait

import (
	"context"
	"fmt"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/testutil/wait"
)

// Allowed waits until user may do verb on resource (of the cwac.a11y.dev
// group) in namespace, asking the API server through admin, a client
// allowed to create SubjectAccessReviews.
func Allowed(t testing.TB, admin client.Client, user, namespace, verb, resource string) {
	t.Helper()
	wait.For(t, fmt.Sprintf("%s to be allowed to %s %s in %s", user, verb, resource, namespace), 30*time.Second,
		func() (bool, any) {
			review := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: user,
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: verb,
					Group: cwacv1alpha1.GroupVersion.Group, Resource: resource}}}
			if err := admin.Create(context.Background(), review); err != nil {
				return false, err
			}
			return review.Status.Allowed, review.Status
		})
}
