// Package benchbucket hands the bucket bench starts to the processes it
// measures (readcase's bucket cases, each a process of its own): one
// variable, set by one side and read by the other.
package benchbucket

import (
	"encoding/json"
	"errors"
	"os"

	"github.com/a11y-dev/cwac-operator/internal/objectstore"
)

// env carries the bucket's configuration as JSON.
const env = "CWAC_BENCH_BUCKET"

// Give makes cfg the bucket of the processes started until undo is called.
func Give(cfg objectstore.Config) (undo func(), err error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if err := os.Setenv(env, string(b)); err != nil {
		return nil, err
	}
	return func() { _ = os.Unsetenv(env) }, nil
}

// Given is the bucket bench gave this process.
func Given() (objectstore.Config, error) {
	var cfg objectstore.Config
	raw := os.Getenv(env)
	if raw == "" {
		return cfg, errors.New(env + " is not set: bench sets it")
	}
	return cfg, json.Unmarshal([]byte(raw), &cfg)
}
