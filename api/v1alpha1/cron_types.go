package v1alpha1

// CronSchedule is when something recurs, in cron syntax: five fields
// (minute hour day-of-month month day-of-week) or one of the @ names. The
// shape is checked here; a value of the right shape that cannot be used
// is reported in the owning object's status.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=128
// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="set the time zone in spec.timeZone, not in the schedule"
// +kubebuilder:validation:XValidation:rule="self.matches('^(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|[0-9A-Za-z*/,?-]+( +[0-9A-Za-z*/,?-]+){4})$')",message="must be five cron fields (minute hour day-of-month month day-of-week) separated by spaces, such as '0 2 * * *', or one of @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly"
type CronSchedule string

// TimeZone is an IANA time zone name, such as Pacific/Auckland. Only the
// database's own names: each part starts with a capital letter, and Local
// and localtime (the host's zone) are refused.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=64
// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9_+-]*(/[A-Z][A-Za-z0-9_+-]*)*$`
// +kubebuilder:validation:XValidation:rule="self.lowerAscii() != 'local' && self.lowerAscii() != 'localtime'",message="name an IANA time zone such as Pacific/Auckland; Local and localtime are not allowed"
type TimeZone string
