package controller

import cwacv1alpha1 "github.com/a11y-dev/cwac-operator/api/v1alpha1"

// waitingReasons are pod waiting reasons that mean "stuck, needs attention".
var waitingReasons = map[string]bool{
	cwacv1alpha1.ReasonImagePullBackOff:           true,
	cwacv1alpha1.ReasonErrImagePull:               true,
	cwacv1alpha1.ReasonInvalidImageName:           true,
	cwacv1alpha1.ReasonCreateContainerConfigError: true,
	"CreateContainerError":                        true,
	"RunContainerError":                           true,
}
