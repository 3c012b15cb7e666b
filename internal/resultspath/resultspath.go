// Package resultspath is the one rule for a path under the results root,
// wherever the results live: a directory of the results volume or a key
// under the results bucket's prefix. A scan's directory
// (namespace/name/...), a results directory and a result file's name are
// all made of it, and whatever a user, a status field or a listing names is
// checked by it before it reaches a file system or a bucket.
package resultspath

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// MaxLen bounds a path: with a bucket's prefix (at most 256 bytes) it stays
// well inside S3's 1,024-byte keys, and far above the longest path a scan
// makes (a namespace, a scan's name, a results directory and a file).
const MaxLen = 700

// segmentRE is what a segment may be made of.
var segmentRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,255}$`)

// SafeName says whether s may be one segment of a path: letters, digits,
// '.', '_' and '-', at most 255 of them, and not "." or "..".
func SafeName(s string) bool {
	return s != "." && s != ".." && segmentRE.MatchString(s)
}

// Check accepts a relative path of safe segments joined by single '/': no
// leading or trailing '/', no empty, "." or ".." segment, no backslash, at
// most MaxLen bytes. Nothing outside the root can be named through it.
func Check(rel string) error {
	if rel == "" {
		return errors.New("empty path")
	}
	if len(rel) > MaxLen {
		return fmt.Errorf("path longer than %d bytes", MaxLen)
	}
	if strings.HasPrefix(rel, "/") {
		return fmt.Errorf("path %q is not relative to the results root", rel)
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if !SafeName(seg) {
			return fmt.Errorf("path %q has an unsafe segment %q", rel, seg)
		}
	}
	return nil
}
