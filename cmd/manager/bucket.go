package main

import (
	"context"
	"time"

	"github.com/go-logr/logr"

	"github.com/a11y-dev/cwac-operator/internal/controller"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
)

// openBucket opens the results bucket when one is configured (nil, nil
// otherwise) and looks at it once: a bucket the operator cannot reach at
// start is logged, not fatal — each scan says so again in its Events
// until it can (a bucket down for a moment must not stop the operator).
func openBucket(cfg objectstore.Config, log logr.Logger) (controller.ResultsBucket, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	st, err := objectstore.Open(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := st.Check(ctx); err != nil {
		log.Error(err, "the results bucket cannot be used yet; scans will say so until it can", "bucket", cfg.Bucket, "endpoint", cfg.Endpoint)
	} else {
		log.Info("results kept in a bucket", "bucket", cfg.Bucket, "endpoint", cfg.Endpoint, "prefix", cfg.Prefix)
	}
	return st, nil
}
