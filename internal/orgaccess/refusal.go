package orgaccess

import (
	"errors"
	"fmt"
)

// ErrNotCovered marks a request for something the caller's grants do not
// cover. Its wording never names what the caller may not see, and an
// organisation, issue or page that does not exist is refused with the same
// words as one that is not covered, so a refusal tells nothing about what
// lies outside the caller's reach.
var ErrNotCovered = errors.New("not covered by your access")

// NotCovered is the refusal of something (such as "this organisation")
// the caller's grants do not cover, saying what the caller lacks.
func NotCovered(what string) error {
	return fmt.Errorf("%w: %s is not among the organisations your CwacOrganisationGrants give you, "+
		"and you may not get CwacScans in this namespace", ErrNotCovered, what)
}

// WholeScanOnly is the refusal of something that shows every organisation
// of a scan at once (a scan-wide file, starting a scan) to a caller who
// reads by organisation grant.
func WholeScanOnly(what string) error {
	return fmt.Errorf("%w: %s covers every organisation of the scan, and your access is by CwacOrganisationGrant "+
		"(get on CwacScans in this namespace is needed)", ErrNotCovered, what)
}
