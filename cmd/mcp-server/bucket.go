package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
)

// openBucket opens the results bucket when one is configured (nil, nil
// otherwise) and looks at it once: a bucket the server cannot reach at
// start is logged, not fatal — /health says so until it can, and the tools
// say it for each scan they cannot read.
func openBucket(cfg objectstore.Config, log *slog.Logger) (*objectstore.Store, error) {
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
		log.Error("the results bucket cannot be read yet", "err", err, "bucket", st.Location())
	} else {
		log.Info("reading results from a bucket", "bucket", st.Location())
	}
	return st, nil
}
