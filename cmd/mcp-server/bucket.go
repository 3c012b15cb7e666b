package main

import (
	"log/slog"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
)

// openBucket opens the results bucket when one is configured (nil, nil
// otherwise) and logs what the look at it found: /health says so until
// the bucket can be read, and the tools say it for each scan they cannot
// read.
func openBucket(cfg objectstore.Config, log *slog.Logger) (*objectstore.Store, error) {
	st, checkErr, err := objectstore.OpenAtStart(cfg)
	if err != nil || st == nil {
		return nil, err
	}
	if checkErr != nil {
		log.Error("the results bucket cannot be read yet", "err", checkErr, "bucket", st.Location())
	} else {
		log.Info("reading results from a bucket", "bucket", st.Location())
	}
	return st, nil
}
