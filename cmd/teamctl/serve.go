package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
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
keys), approve or deny a permission request, send a message, restart a member,
read a member's changes (diff --stat, then one file's diff), merge its work
into its base, and finish it (teamctl finish --yes) once the page has shown
what finish will do and you confirmed. Each action is recorded in the team's events with the address it came from. The
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
			opts.Backend = serveBackend{Actions: team.Actions{TmuxBin: g.tmuxBin}}
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
		printInsecure(o.IO.ErrOut, o.Addr)
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
	printServing(o, addr, made, loginURL(host, addr, tlsOn, token))
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
