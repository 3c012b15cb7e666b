package main

import (
	"context"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/owners"
)

// dashboardOwners is the dashboard's Owners: the owners declared with the
// sites of the namespace's schedules and scans, read from the server's
// cache. The lists are read without copying (only read, never kept): a
// namespace's scans may name thousands of sites each.
type dashboardOwners struct {
	cache client.Reader
}

func (d dashboardOwners) Of(ctx context.Context, namespace string) (map[string][]cwacv1alpha1.Owner, error) {
	var schedules cwacv1alpha1.CwacScanScheduleList
	if err := d.cache.List(ctx, &schedules, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("reading the schedules: %w", err)
	}
	var scans cwacv1alpha1.CwacScanList
	if err := d.cache.List(ctx, &scans, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, fmt.Errorf("reading the scans: %w", err)
	}
	return owners.Of(owners.Declarations(schedules.Items, scans.Items, time.Now())), nil
}
