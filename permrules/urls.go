package permrules

import (
	"net/url"
	"path"
	"regexp"
	"strings"
)

// WebFetch(domain:…) rules match the URL's host as Claude Code documents
// them: domain:example.com is that host only (not its subdomains),
// domain:*.example.com its subdomains at any depth (not example.com itself),
// domain:* every host, and a * inside a label stands for that label
// (domain:example.* matches example.org, not example.evil.com). Hosts are
// compared lower-cased, without a trailing dot and without the port.
//
// The host is net/url's, and only for http and https. Where URL parsers are
// known to disagree — user info (https://example.com@evil.example/),
// backslashes, percent-escapes, spaces or control characters, non-ASCII hosts
// (IDN is compared by neither form) — the URL is not read and a person
// decides.

var domainRE = regexp.MustCompile(`^[a-z0-9*_-]+(\.[a-z0-9*_-]+)*$`)

// matchDomain matches a WebFetch rule's pattern against a URL.
func matchDomain(pattern, rawURL string) tri {
	d, ok := strings.CutPrefix(pattern, "domain:")
	if !ok {
		return unsure // not a form Claude Code knows for WebFetch
	}
	d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
	if !domainRE.MatchString(d) {
		return unsure
	}
	host, ok := urlHost(rawURL)
	if !ok {
		return unsure
	}
	if d == "*" {
		return yes
	}
	dl, hl := strings.Split(d, "."), strings.Split(host, ".")
	if dl[0] == "*" && len(dl) > 1 {
		// *.example.com: one label or more before example.com.
		if len(hl) < len(dl) {
			return no
		}
		return labels(dl[1:], hl[len(hl)-len(dl)+1:])
	}
	if len(hl) != len(dl) {
		return no
	}
	return labels(dl, hl)
}

// labels matches host labels one to one; * in a pattern label is any text
// within the label.
func labels(pattern, host []string) tri {
	for i := range pattern {
		if ok, err := path.Match(pattern[i], host[i]); err != nil || !ok {
			return no
		}
	}
	return yes
}

// urlHost returns the lower-cased host of an http(s) URL, if it can be read
// without doubt.
func urlHost(raw string) (string, bool) {
	for _, r := range raw {
		if r <= ' ' || r == 0x7f || r == '\\' {
			return "", false
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return "", false
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return "", false
	}
	// The authority as written: no user info, no escapes, ASCII only.
	_, rest, _ := strings.Cut(raw, "://")
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	for _, r := range authority {
		if r == '@' || r == '%' || r > 0x7e {
			return "", false
		}
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" || strings.HasSuffix(host, ".") || strings.HasPrefix(host, ".") || strings.Contains(host, "..") {
		return "", false
	}
	return host, true
}
