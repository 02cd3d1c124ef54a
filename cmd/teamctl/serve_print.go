package main

import (
	"fmt"
	"io"

	"github.com/teamctl/teamctl/web"
)

// printInsecure warns, on stderr, of plain HTTP on an address that is not
// loopback.
func printInsecure(w io.Writer, addr string) {
	fmt.Fprintf(w, "\nWARNING: --insecure-http: serving plain HTTP on %s. Anyone on the path between your browser and this machine can read the login URL and the session cookie, and then answer, approve and send as you. Use it only on a network you trust as much as this machine (a WireGuard or Tailscale link); TLS or an SSH tunnel is safer.\n\n", addr)
}

// printServing says what serve shows, on which address, and the login URL
// u (a QR code of it on a terminal); made: the token is new.
func printServing(o *serveOptions, addr string, made bool, u string) {
	what := "every team that is up"
	if o.Team != "" {
		what = "team " + o.Team
	}
	if o.ReadOnly {
		what += ", read-only"
	}
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
}
