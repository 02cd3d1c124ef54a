package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamctl/teamctl/internal/iostreams"
	"github.com/teamctl/teamctl/team"
	"github.com/teamctl/teamctl/web"
)

// defaultServeAddr is where `teamctl serve` listens unless told: loopback.
const defaultServeAddr = "127.0.0.1:8421"

// serveOptions are where `teamctl serve` listens, what it shows and how.
type serveOptions struct {
	IO           *iostreams.IO
	Team         string
	Addr         string
	ReadOnly     bool
	TLSCert      string
	TLSKey       string
	InsecureHTTP bool
	NewToken     bool
	LoginURL     bool // print the login URL and exit
	Backend      web.Backend
	// Listening, when set, is told the address listened on (tests).
	Listening func(addr string)
}

func newServeCmd(ios *iostreams.IO, g *globals, runF func(context.Context, *serveOptions) error) *cobra.Command {
	opts := &serveOptions{IO: ios}
	cmd := &cobra.Command{
		Use: "serve",
		Example: `  teamctl serve
  teamctl serve --read-only --team demo
  teamctl serve --new-token
  teamctl serve --addr 100.64.0.7:8421 --tls-cert host.crt --tls-key host.key`,
		Short: "The cockpit in a browser: who waits for you, answer and approve from a phone",
		Long: `Serve one web page that shows every team that is up as top does (each member,
its state, for how long, what it waits on, whoever waits for you first), live,
and acts as the commands do: answer a stalled member (a Claude Code dialog by
its own options, shown with what it asks about; a prompt with y, n, Enter, Esc;
keys), approve or deny a permission request, send a message, restart a member. Each
action is recorded in the team's events with the address it came from. The
page notifies (and beeps) when someone starts waiting, while it is open.

It listens on 127.0.0.1:8421 unless --addr says otherwise; any address but
loopback needs TLS (--tls-cert and --tls-key) or --insecure-http, which sends
everything, your session included, in clear. Reach it from a phone through an
SSH tunnel or a private network (Tailscale, WireGuard), never an open port.

Logging in: serve prints a login URL (and a QR code of it, on a terminal)
holding a random token of 256 bits, kept 0600 in teamctl's state folder;
--read-only has a token of its own, which a serve that acts refuses (and a
read-only serve takes its own alone). A browser opening it gets a session
cookie and the page's own URL; the token appears in no later URL. --new-token
makes a new token (of --read-only's kind with it; old login URLs stop
working; sessions already open last until serve restarts); --login-url prints
the URL and exits (for a serve run as a service, whose output is not kept).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Team = g.team
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			opts.Backend = web.Teamctl{Actions: team.Actions{TmuxBin: g.tmuxBin}}
			return serveRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Addr, "addr", defaultServeAddr, "the address to listen on (host:port); any but loopback needs TLS or --insecure-http")
	f.BoolVar(&opts.ReadOnly, "read-only", false, "show the teams, refuse every action (the page shows none); its login token is one of its own")
	f.StringVar(&opts.TLSCert, "tls-cert", "", "serve HTTPS with this certificate (PEM; with --tls-key)")
	f.StringVar(&opts.TLSKey, "tls-key", "", "the certificate's private key (PEM)")
	f.BoolVar(&opts.InsecureHTTP, "insecure-http", false, "allow plain HTTP on an address that is not loopback: everything, the session cookie included, goes in clear")
	f.BoolVar(&opts.NewToken, "new-token", false, "make a new login token; every login URL printed before stops working")
	f.BoolVar(&opts.LoginURL, "login-url", false, "print the login URL and exit")
	g.addTeamFlag(cmd, "show this team alone (default: every team that is up, as they come and go)")
	return cmd
}

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

func serveRun(ctx context.Context, o *serveOptions) error {
	host, tlsOn, err := checkServeAddr(o)
	if err != nil {
		return err
	}
	token, made, err := web.LoadToken(o.ReadOnly, o.NewToken)
	if err != nil {
		return err
	}
	if o.LoginURL {
		fmt.Fprintln(o.IO.Out, loginURL(host, o.Addr, tlsOn, token))
		return nil
	}
	if o.InsecureHTTP && !loopback(host) {
		fmt.Fprintf(o.IO.ErrOut, "\nWARNING: --insecure-http: serving plain HTTP on %s. Anyone on the path between your browser and this machine can read the login URL and the session cookie, and then answer, approve and send as you. Use it only on a network you trust as much as this machine (a WireGuard or Tailscale link); TLS or an SSH tunnel is safer.\n\n", o.Addr)
	}
	var cert tls.Certificate
	if tlsOn {
		if cert, err = tls.LoadX509KeyPair(o.TLSCert, o.TLSKey); err != nil {
			return fmt.Errorf("load --tls-cert %s and --tls-key %s: %w", o.TLSCert, o.TLSKey, err)
		}
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	log := slog.New(slog.NewTextHandler(o.IO.ErrOut, nil))
	wo := web.Options{Backend: o.Backend, Token: token, Team: o.Team, ReadOnly: o.ReadOnly, Secure: tlsOn, Log: log}
	if loopback(host) {
		_, port, _ := net.SplitHostPort(addr)
		wo.Hosts = serveHosts(host, port, tlsOn)
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv, err := web.New(sctx, wo)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 16 << 10, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	if tlsOn {
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	what := "every team that is up"
	if o.Team != "" {
		what = "team " + o.Team
	}
	if o.ReadOnly {
		what += ", read-only"
	}
	u := loginURL(host, addr, tlsOn, token)
	fmt.Fprintf(o.IO.Out, "teamctl serve: %s on %s\n", what, addr)
	if made && o.NewToken { // the first serve's token replaces none
		fmt.Fprintln(o.IO.Out, "a new login token was made: login URLs printed before no longer work")
	}
	fmt.Fprintf(o.IO.Out, "log in (once per browser) with:\n  %s\n", u)
	if o.IO.IsTTY() {
		if qr, err := web.QR(u); err == nil {
			fmt.Fprint(o.IO.Out, qr)
		}
	}
	if o.Listening != nil {
		o.Listening(addr)
	}
	errc := make(chan error, 1)
	go func() {
		if tlsOn {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("serve on %s: %w", addr, err)
	case <-ctx.Done():
	}
	shctx, shcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer shcancel()
	cancel() // the event streams end with the hub's context…
	hs.Shutdown(shctx)
	return nil
}
