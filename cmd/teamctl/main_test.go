package main_test

import (
	"flag"
	"os"
	"testing"

	"github.com/teamctl/teamctl/internal/testenv"
)

// integrationParallel is how many of this package's tests run at once unless
// -parallel says otherwise. They run the built teamctl against real tmux and
// spend nearly all their time waiting (for quiet periods, restarts, tmux's
// once-a-second exit reports), so more of them than cores overlap well;
// every wait in them gives up only late (testenv.Eventually: a minute at
// least), so a busy machine makes them slower, never wrong.
const integrationParallel = "16"

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", integrationParallel)
	}
	os.Exit(testenv.Main(m))
}
