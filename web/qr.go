package web

import (
	"fmt"
	"strings"

	qrcode "github.com/skip2/go-qrcode"
)

// QR is a QR code of text for a terminal: two modules a character (upper and
// lower half blocks), dark on light, with its quiet zone, so a phone's camera
// reads it off the screen.
func QR(text string) (string, error) {
	q, err := qrcode.New(text, qrcode.Low)
	if err != nil {
		return "", fmt.Errorf("make the login URL's QR code: %w", err)
	}
	bm := q.Bitmap() // true is dark; the quiet zone included
	var b strings.Builder
	for y := 0; y < len(bm); y += 2 {
		for x := range bm[y] {
			top, bottom := bm[y][x], y+1 < len(bm) && bm[y+1][x]
			// Drawn light on the terminal's dark: a light character is a light module.
			switch {
			case !top && !bottom:
				b.WriteRune('█')
			case !top:
				b.WriteRune('▀')
			case !bottom:
				b.WriteRune('▄')
			default:
				b.WriteRune(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}
