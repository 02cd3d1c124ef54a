package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strings"
)

// loopback reports whether host is a loopback address or localhost.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkServeAddr says whether addr may be served as o says: loopback, or TLS,
// or plain HTTP asked for by name.
func checkServeAddr(o *serveOptions) (host string, tlsOn bool, err error) {
	host, port, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return "", false, fmt.Errorf("--addr %q: want host:port (127.0.0.1:8421): %w", o.Addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return "", false, fmt.Errorf("--addr %q: port %q: %w", o.Addr, port, err)
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return "", false, errors.New("--tls-cert and --tls-key go together: give both, or neither")
	}
	tlsOn = o.TLSCert != ""
	if tlsOn && o.InsecureHTTP {
		return "", false, errors.New("--insecure-http with --tls-cert: choose one")
	}
	if !loopback(host) && !tlsOn && !o.InsecureHTTP {
		what := "every address of this machine"
		if host != "" && !net.ParseIP(host).IsUnspecified() {
			what = host
		}
		return "", false, fmt.Errorf("--addr %s listens on %s, not loopback: that needs TLS (--tls-cert FILE --tls-key FILE), or --insecure-http to send everything in clear; from a phone, an SSH tunnel or a private network (Tailscale, WireGuard) to 127.0.0.1 is safer than either", o.Addr, what)
	}
	return host, tlsOn, nil
}

// loginURL is the URL a browser logs in with, on the address listened on.
func loginURL(host, addr string, tlsOn bool, token string) string {
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	_, port, _ := net.SplitHostPort(addr)
	if host == "" || net.ParseIP(host).IsUnspecified() {
		host, _ = os.Hostname()
	}
	u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: "/login", RawQuery: "token=" + token}
	return u.String()
}

// serveHosts are the Host headers a serve on loopback answers (a page whose
// DNS name was rebound to loopback sends its own, and reads nothing): the
// address it listens on, as its login URL has it, and loopback's names, on
// its port; on the scheme's own port (80, 443), without it too, as a browser
// sends it.
func serveHosts(host, port string, tlsOn bool) []string {
	names := []string{"127.0.0.1", "localhost", "::1"}
	if !slices.Contains(names, host) {
		names = append([]string{host}, names...)
	}
	bare := port == "80" && !tlsOn || port == "443" && tlsOn
	var hosts []string
	for _, n := range names {
		hosts = append(hosts, net.JoinHostPort(n, port))
		if bare {
			if strings.Contains(n, ":") {
				n = "[" + n + "]"
			}
			hosts = append(hosts, n)
		}
	}
	return hosts
}
