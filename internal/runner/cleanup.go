package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DeleteResults empties dir, the one scan directory the cleanup pod mounts
// (spec.resultsPolicy Delete), and returns how many entries it removed.
// dir itself stays: it is the pod's mount point. Symbolic links are removed,
// never followed, so nothing outside dir is touched.
func DeleteResults(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", dir, err)
	}
	var errs []error
	removed := 0
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("removed %d of %d entries of %s: %w", removed, len(entries), dir, errors.Join(errs...))
	}
	return removed, nil
}
