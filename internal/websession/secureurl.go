package websession

import "net/url"

// SecureURL reports whether u is an absolute https URL without user
// information, or http on a loopback host (where browsers keep Secure
// cookies too): the rule for a provider's issuer and the URLs a sign-in
// hands to it or to clients.
func SecureURL(u *url.URL) bool {
	if u.Host == "" || u.User != nil {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		h := u.Hostname()
		return h == "localhost" || h == "127.0.0.1" || h == "::1"
	}
	return false
}
