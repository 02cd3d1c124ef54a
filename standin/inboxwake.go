package standin

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// inboxWake tells the loops that read a teammate's inbox that it may have
// changed, so a message is taken when it is written rather than at the next
// poll (the polls stay: a folder that cannot be watched, or a change missed,
// costs at most inboxPoll). Every reader gets the wake-up: C hands out one
// channel, closed at the next change and then made anew.
type inboxWake struct {
	mu sync.Mutex
	ch chan struct{}
}

// C is closed at the next change of the inbox after it was asked for. A
// nil *inboxWake (no inbox, or none watched) gives a channel that never
// closes.
func (w *inboxWake) C() <-chan struct{} {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

func (w *inboxWake) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}

// watchInbox watches the folder of the inbox file path (mailboxes are
// replaced by a rename, so the file alone cannot be watched) until ctx ends;
// while that folder is not there yet, the team's folder above it, for its
// making. It returns nil when neither can be watched.
func watchInbox(ctx context.Context, path string) *inboxWake {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil
	}
	dir := filepath.Dir(path)
	if fw.Add(dir) != nil && fw.Add(filepath.Dir(dir)) != nil {
		fw.Close()
		return nil
	}
	w := &inboxWake{}
	go func() {
		defer fw.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				switch ev.Name {
				case dir: // made after the stand-in started
					if fw.Add(dir) == nil {
						w.wake()
					}
				case path:
					w.wake()
				}
			case _, ok := <-fw.Errors:
				if !ok {
					return
				}
				w.wake() // events may have been lost: look
			}
		}
	}()
	return w
}
