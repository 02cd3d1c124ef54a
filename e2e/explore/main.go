// Temporary exploration tool (to be deleted).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"

	"github.com/teamctl/teamctl/internal/fakeapi"
)

func main() {
	s, err := fakeapi.Start(fakeapi.WithScript(fakeapi.Rules(fakeapi.Rule{When: fakeapi.AfterToolResult(), Reply: fakeapi.Always(fakeapi.Text("bash done"))}, fakeapi.Rule{When: fakeapi.LastUserContains("RUNBASH"), Reply: fakeapi.Always(fakeapi.Bash("echo hi-from-bash > /tmp/x1/work/bashran", "say hi"))})), fakeapi.WithLog(func(f string, a ...any) { fmt.Printf(f+"\n", a...) }))
	if err != nil {
		panic(err)
	}
	fmt.Println("URL", s.URL)
	os.WriteFile(os.Args[1], []byte(s.URL), 0o600)
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt)
	<-c
	f, _ := os.Create(os.Args[1] + ".reqs.json")
	enc := json.NewEncoder(f)
	enc.SetIndent("", " ")
	for _, r := range s.Requests() {
		enc.Encode(r)
	}
	f.Close()
	s.Close()
}
