package main

import (
	"flag"
	"fmt"
	"net/url"
	"time"

	"github.com/a11y-dev/cwac-operator/internal/controller"
	"github.com/a11y-dev/cwac-operator/internal/notify"
	"github.com/a11y-dev/cwac-operator/internal/urlpolicy"
)

// notifyFlags configure the delivery of scans' spec.notifications.
type notifyFlags struct {
	allowCIDRs   string
	allowHTTP    bool
	timeout      time.Duration
	retryWindow  time.Duration
	workers      int
	dashboardURL string
}

func (f *notifyFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.allowCIDRs, "notify-allow-cidrs", "",
		"comma-separated address ranges notification receivers may be at although the scan-target policy refuses them "+
			"(e.g. a receiver inside the cluster); scans stay refused there")
	fs.BoolVar(&f.allowHTTP, "notify-allow-http", false, "let notification receivers use http:// (https only by default)")
	fs.DurationVar(&f.timeout, "notify-timeout", notify.DefaultTimeout, "how long one delivery to a receiver may take")
	fs.DurationVar(&f.retryWindow, "notify-retry-window", notify.DefaultRetryWindow,
		"how long a failed delivery is retried (with backoff from 5s to 5m) before it is given up with a Warning Event")
	fs.IntVar(&f.workers, "notify-workers", controller.DefaultNotifyWorkers, "finished scans whose notifications are sent at once")
	fs.StringVar(&f.dashboardURL, "dashboard-url", "", "the dashboard's external URL, linked from notifications (empty: no link)")
}

func (f *notifyFlags) options(lists urlpolicy.Lists) (controller.NotifyOptions, error) {
	cidrs, err := urlpolicy.ParseCIDRs(f.allowCIDRs)
	if err != nil {
		return controller.NotifyOptions{}, fmt.Errorf("--notify-allow-cidrs: %w", err)
	}
	if f.timeout <= 0 || f.retryWindow <= 0 || f.workers < 1 {
		return controller.NotifyOptions{}, fmt.Errorf("--notify-timeout (%s) and --notify-retry-window (%s) must be positive and --notify-workers (%d) at least 1",
			f.timeout, f.retryWindow, f.workers)
	}
	if f.dashboardURL != "" {
		u, err := url.Parse(f.dashboardURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return controller.NotifyOptions{}, fmt.Errorf("--dashboard-url %q must be an absolute http(s) URL", f.dashboardURL)
		}
	}
	return controller.NotifyOptions{
		Lists: lists, AllowCIDRs: cidrs, AllowHTTP: f.allowHTTP, Timeout: f.timeout,
		Retry: notify.Retry{Window: f.retryWindow}, Workers: f.workers, DashboardURL: f.dashboardURL,
	}, nil
}
