package schedule

import (
	"fmt"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateTemplateMetadata checks the labels and annotations a schedule puts
// on its scans by the API server's own rules for object metadata (which the
// CRD cannot express for a map's keys), so a bad one is reported when the
// schedule is written rather than at every tick. The error is a *FieldError
// naming the first bad entry.
func ValidateTemplateMetadata(labels, annotations map[string]string) error {
	base := field.NewPath("spec", "scanTemplate", "metadata")
	errs := metavalidation.ValidateLabels(labels, base.Child("labels"))
	errs = append(errs, apivalidation.ValidateAnnotations(annotations, base.Child("annotations"))...)
	if len(errs) == 0 {
		return nil
	}
	e := errs[0]
	value := fmt.Sprint(e.BadValue)
	if e.Type == field.ErrorTypeTooLong || e.Type == field.ErrorTypeTooMany {
		value = "" // a size, not the entry
	}
	detail := e.Detail
	if detail == "" {
		detail = e.ErrorBody()
	}
	return &FieldError{Field: e.Field, Value: value, Detail: detail}
}
