package scanjob

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"
	"github.com/a11y-dev/cwac-operator/internal/cwacconfig"
	"github.com/a11y-dev/cwac-operator/internal/textcap"
)

// Checks admission makes of a scan's spec before anything is built from it.

// overrides are a scan's configOverrides as cwacconfig takes them (nil when none).
func overrides(scan *cwacv1alpha1.CwacScan) map[string]json.RawMessage {
	if len(scan.Spec.ConfigOverrides) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(scan.Spec.ConfigOverrides))
	for k, v := range scan.Spec.ConfigOverrides {
		out[k] = json.RawMessage(v.Raw)
	}
	return out
}

// specError names the spec's field in an overrides error
// (spec.configOverrides.<key>: …); other errors are as they are.
func specError(err error) error {
	var oe *cwacconfig.OverridesError
	if errors.As(err, &oe) {
		return fmt.Errorf("spec.%w", err)
	}
	return err
}

// CheckConfigOverrides bounds spec.configOverrides and refuses the keys
// the operator, the runner or the image owns (cwacconfig.CheckOverrides),
// in one pass over their bytes that decodes nothing but audit_plugins:
// the first check admission makes, before anything renders the overrides.
// The error is an *InvalidSpecError naming the field and the limit.
func CheckConfigOverrides(scan *cwacv1alpha1.CwacScan) error {
	if err := cwacconfig.CheckOverrides(overrides(scan)); err != nil {
		return &InvalidSpecError{Err: specError(err)}
	}
	return nil
}

// AnyImage, alone in Options.AllowedImages, allows every image.
const AnyImage = "*"

// ParseAllowedImages reads the operator's list of allowed CWAC images
// (comma-separated; see Options.AllowedImages): each entry is an image
// reference, or a prefix ending in *, or * alone. It returns an empty,
// non-nil list for "" (the default image only).
func ParseAllowedImages(list string) ([]string, error) {
	out := []string{}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if strings.Contains(strings.TrimSuffix(p, "*"), "*") {
			return nil, fmt.Errorf("allowed image %q: * may only end an entry (a prefix such as registry.example/cwac:*)", p)
		}
		if strings.ContainsAny(p, " \t\r\n") {
			return nil, fmt.Errorf("allowed image %q: has white space", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// imageAllowed: image is the default image, or matches an entry of
// allowed: an entry ending in * as a prefix of the image as written, any
// other as the same image however spelt (cwac:1 is docker.io/library/cwac:1).
func imageAllowed(image string, opts Options) bool {
	if opts.AllowedImages == nil || sameImage(image, opts.DefaultImage) {
		return true
	}
	for _, p := range opts.AllowedImages {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			if strings.HasPrefix(image, prefix) {
				return true
			}
			continue
		}
		if sameImage(image, p) {
			return true
		}
	}
	return false
}

// maxAllowedShown caps the list of allowed images a refusal quotes.
const maxAllowedShown = 512

// CheckImage refuses a scan whose spec.image the operator does not allow
// (Options.AllowedImages): a scan's image runs with the scan pod's access
// to the results volume of its namespace and to the network its policy
// allows, so which images may run is the cluster administrator's choice.
func CheckImage(scan *cwacv1alpha1.CwacScan, opts Options) error {
	image := Image(scan, opts)
	if imageAllowed(image, opts) {
		return nil
	}
	allowed := opts.DefaultImage
	if len(opts.AllowedImages) > 0 {
		allowed = textcap.Head(allowed+", "+strings.Join(opts.AllowedImages, ", "), maxAllowedShown)
	}
	return fmt.Errorf("spec.image %s is not an image this operator runs (allowed: %s): leave spec.image unset for %s, "+
		"or ask the cluster administrator to allow it (operator flag --allowed-images, chart value cwac.allowedImages)",
		image, allowed, opts.DefaultImage)
}
