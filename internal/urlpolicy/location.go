package urlpolicy

import (
	"errors"
	"net/url"
	"strings"
)

// ResolveLocation resolves a redirect's Location against the URL that sent
// it the way a browser does (the WHATWG URL standard for http and https),
// not the way Go's URL parser does. The two differ exactly where an
// attacker wants them to: a browser drops tabs and line breaks anywhere,
// treats a backslash as a slash before the query, reads any run of slashes
// after "http:" or at the start of a reference as the start of a host, and
// ends the host at a backslash, so "/\169.254.169.254/" and
// "http://169.254.169.254\@127.0.0.2/" both lead to 169.254.169.254.
// What cannot be resolved is an error: the caller refuses it.
func ResolveLocation(base *url.URL, location string) (*url.URL, error) {
	loc := browserClean(location)
	if loc == "" {
		return nil, errors.New("empty Location")
	}
	if scheme, rest, ok := splitScheme(loc); ok {
		switch {
		case scheme != "http" && scheme != "https":
			return nil, errors.New("redirects to a " + scheme + ": URL")
		case scheme == base.Scheme && !strings.HasPrefix(rest, "/"):
			// "http:path" with the base's own scheme is a relative path.
			return parseRef(base, rest)
		default:
			return parseAbsolute(scheme, rest)
		}
	}
	if strings.HasPrefix(loc, "//") {
		return parseAbsolute(base.Scheme, loc)
	}
	return parseRef(base, loc)
}

// browserClean does what a browser does to a URL string before parsing it:
// trims C0 controls and spaces at both ends, drops every tab and line
// break, and turns backslashes before the query or fragment into slashes.
func browserClean(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= 0x20 })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	end := strings.IndexAny(s, "?#")
	if end < 0 {
		end = len(s)
	}
	return strings.ReplaceAll(s[:end], `\`, "/") + s[end:]
}

// splitScheme splits "scheme:rest" when s starts with a URL scheme.
func splitScheme(s string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", "", false
	}
	for j, c := range s[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		other := c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
		if !letter && (j == 0 || !other) {
			return "", "", false
		}
	}
	return strings.ToLower(s[:i]), s[i+1:], true
}

// parseAbsolute reads rest as an authority and what follows, however many
// slashes lead it (a browser skips them all for http and https).
func parseAbsolute(scheme, rest string) (*url.URL, error) {
	rest = strings.TrimLeft(rest, "/")
	if rest == "" {
		return nil, errors.New("redirects to a URL without a host")
	}
	rest, err := decodeHost(rest)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(scheme + "://" + rest)
	if err != nil {
		return nil, errors.New("redirects to a URL that cannot be parsed")
	}
	if u.Host == "" { // "//#x", "//?q": nothing before the query or fragment
		return nil, errors.New("redirects to a URL without a host")
	}
	return u, nil
}

// decodeHost percent-decodes the host of rest (an authority and what
// follows it) as a browser does before it reads the host: "%31%36%39.254.169.254"
// is 169.254.169.254 to a browser, and an error to Go's parser. A decoded
// host holding what no host may hold, or an escape that is not one, cannot
// be read as the browser would read it: an error.
func decodeHost(rest string) (string, error) {
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority := rest[:end]
	at := strings.LastIndexByte(authority, '@') + 1 // the host follows the last @
	hostPort := authority[at:]
	if !strings.Contains(hostPort, "%") || strings.HasPrefix(hostPort, "[") {
		return rest, nil // nothing to decode; an IPv6 literal's zone is Go's to refuse
	}
	host, port := hostPort, ""
	if i := strings.LastIndexByte(hostPort, ':'); i >= 0 {
		host, port = hostPort[:i], hostPort[i:]
	}
	decoded, err := url.PathUnescape(host)
	if err != nil || decoded == "" || strings.ContainsFunc(decoded, forbiddenInHost) {
		return "", errors.New("redirects to a URL whose percent-encoded host cannot be read")
	}
	return authority[:at] + strings.ToLower(decoded) + port + rest[end:], nil
}

// forbiddenInHost: the WHATWG URL standard's forbidden domain code points
// (controls, space and the delimiters of a URL), and anything outside ASCII,
// which a browser would first turn into punycode.
func forbiddenInHost(r rune) bool {
	return r <= 0x20 || r >= 0x7f || strings.ContainsRune("#%/:<>?@[\\]^|", r)
}

func parseRef(base *url.URL, ref string) (*url.URL, error) {
	r, err := url.Parse(ref)
	if err != nil || r.IsAbs() || r.Host != "" {
		return nil, errors.New("redirects to a URL that cannot be parsed")
	}
	return base.ResolveReference(r), nil
}
