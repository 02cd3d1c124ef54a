//go:build !linux

package ptywatch

import "os"

// eofChar is ^D, the default everywhere: reading the slave's termios through
// the master is a Linux behaviour.
func eofChar(*os.File) byte { return ctrlD }

// inputPending cannot tell here, so the end of input is sent without waiting.
func inputPending(*os.File) (int, bool) { return 0, false }
