package main_test

// The tests here run a teamctl binary that testenv builds in a subprocess, which
// go test's cache cannot see. Importing the command's code makes this test binary
// depend on all of it, so a change anywhere in teamctl reruns these tests instead
// of reporting a stale cached pass.
import _ "github.com/teamctl/teamctl/internal/cli"
