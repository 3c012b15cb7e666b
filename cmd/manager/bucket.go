package main

import (
	"github.com/go-logr/logr"

	"github.com/a11y-dev/cwac-operator/internal/controller"
	"github.com/a11y-dev/cwac-operator/internal/objectstore"
)

// openBucket opens the results bucket when one is configured (nil, nil
// otherwise) and logs what the look at it found: scans say again, in their
// Events, a bucket they cannot use.
func openBucket(cfg objectstore.Config, log logr.Logger) (controller.ResultsBucket, error) {
	st, checkErr, err := objectstore.OpenAtStart(cfg)
	if err != nil || st == nil {
		return nil, err // never a nil *Store in the interface
	}
	if checkErr != nil {
		log.Error(checkErr, "the results bucket cannot be used yet; scans will say so until it can", "bucket", st.Location())
	} else {
		log.Info("results kept in a bucket", "bucket", st.Location())
	}
	return st, nil
}
