package approval

import (
	"net/url"
	"path"
	"strings"
)

// URL rules (web_fetch(url=https://go.dev/*)) match the URL parsed, part by
// part, never as a string: a pattern's host is compared with the URL's host
// only, so https://go.dev.evil.net/, https://evil.net/?https://go.dev/ and
// https://go.dev@evil.net/ are other hosts.

// urlParts is a URL reduced to what a rule compares: lower-case scheme and
// host (no trailing dot), the port only when it is not the scheme's
// default, and the path cleaned of dot segments.
type urlParts struct {
	scheme, host, port string
	paths              []string // the decoded and the escaped path, cleaned
	query              string
	user               bool
}

var defaultPorts = map[string]string{"http": "80", "https": "443"}

func parseURLParts(raw string) (urlParts, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Opaque != "" || u.Host == "" {
		return urlParts{}, false
	}
	p := urlParts{scheme: strings.ToLower(u.Scheme), host: strings.TrimSuffix(strings.ToLower(u.Hostname()), "."),
		port: u.Port(), query: u.RawQuery, user: u.User != nil}
	if p.port == defaultPorts[p.scheme] {
		p.port = ""
	}
	for _, s := range []string{u.Path, u.EscapedPath()} {
		if s == "" {
			s = "/"
		}
		c := path.Clean("/" + s)
		if strings.HasSuffix(s, "/") && c != "/" {
			c += "/"
		}
		p.paths = append(p.paths, c)
	}
	return p, true
}

// urlPattern is a rule's pattern split like a URL; * in each part matches
// any run of characters within that part only.
type urlPattern struct {
	scheme, host, port, path string
	query                    string
	hasQuery                 bool
}

// parseURLPattern splits "https://*.go.dev/doc/*"; a pattern without "://"
// is a host pattern (go.dev, *.go.dev) for http and https, any path.
func parseURLPattern(p string) urlPattern {
	var up urlPattern
	rest := p
	if s, r, ok := strings.Cut(p, "://"); ok {
		up.scheme, rest = strings.ToLower(s), r
	} else {
		up.scheme = "http*"
	}
	hostport, pth, hasPath := strings.Cut(rest, "/")
	if hasPath {
		up.path = "/" + pth
	} else {
		up.path = "*"
	}
	if q, query, ok := strings.Cut(up.path, "?"); ok {
		up.path, up.query, up.hasQuery = q, query, true
	}
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		hostport, up.port = hostport[:i], hostport[i+1:]
	}
	up.host = strings.TrimSuffix(strings.ToLower(hostport), ".")
	if up.port == defaultPorts[up.scheme] {
		up.port = ""
	}
	return up
}

// matches reports whether every part of u matches. A path pattern ending
// in * covers the query too; otherwise a query must match the pattern's.
func (up urlPattern) matches(u urlParts, deny bool) bool {
	if u.user && !deny {
		return false // userinfo hides the real host from a reader: it asks
	}
	if !wildcard(up.scheme, u.scheme) || !wildcard(up.host, u.host) || up.port != u.port && up.port != "*" {
		return false
	}
	for _, p := range u.paths {
		if !wildcard(up.path, p) {
			return false
		}
	}
	switch {
	case up.hasQuery:
		return wildcard(up.query, u.query)
	case u.query != "":
		return strings.HasSuffix(up.path, "*")
	}
	return true
}

// urlRuleMatch matches a web_fetch URL rule. deny: also the URL as written,
// so a deny rule errs on the side of matching.
func urlRuleMatch(pattern, raw string, deny bool) bool {
	if pattern == "*" {
		return true
	}
	if deny && wildcard(strings.ToLower(pattern), strings.ToLower(raw)) {
		return true
	}
	u, ok := parseURLParts(raw)
	if !ok {
		return false
	}
	return parseURLPattern(pattern).matches(u, deny)
}
