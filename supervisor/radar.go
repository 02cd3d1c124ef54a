package supervisor

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/teamctl/teamctl/state"
	"github.com/teamctl/teamctl/worktrees"
)

// The conflict radar keeps what merging every pair of members' work would do
// current, without polling the disk: a member's turn ending (a Stop or
// TeammateIdle hook, idle on screen, an idle notification) marks its work as
// maybe changed; after radarDebounce the marked members' work is read again
// and the pairs whose work changed merged (worktrees.TryMerge), one at a
// time, by radarWorker, never on the loop. What it finds comes back to the
// loop (radarDone): a new conflict is a conflict event, one gone a
// conflict-resolved event, both told to the lead when the layout says
// review.tellLead, and live.json keeps the conflicts now for status and top.
// A branch moving (a commit, a checkout, a reset: its worktree's HEAD or its
// loose ref changing, which the file watch follows once a pass has found
// them) marks every member's work too: a person's commit in a member's
// worktree is seen without a turn ending.

// radarDebounce is how long after a turn ends the radar looks: the turns that
// end meanwhile are looked at in the same pass.
const radarDebounce = 2 * time.Second

// radar is the loop's side of the conflict radar.
type radar struct {
	git   gitWork
	dirty map[string]bool // members whose work may have changed since it was read
	timer timer           // the debounce running, or nil
	busy  bool            // a job is with the worker
	fire  chan struct{}   // the debounce ran out
	jobs  chan radarJob   // to radarWorker
	done  chan radarResult
	works map[string]worktrees.Side // each member's work as last read
	// seen are the works of each pair last merged (key: pairKey, their
	// Side.Key), so a pass merges only the pairs whose work changed.
	seen map[string][2]string
	// known are the conflicts now, by pairKey.
	known map[string]state.Conflict
	off   bool // git cannot tell (too old): said once, looked no more
	// refsOf are the members whose branch files the file watch follows.
	refsOf map[string]bool
	// remoteBases are the bases, as last fetched, of the members with a
	// worktree on another host.
	remoteBases map[string]worktrees.Side
}

func newRadar(git gitWork) *radar {
	return &radar{git: git, dirty: map[string]bool{}, fire: make(chan struct{}, 1), jobs: make(chan radarJob, 1), done: make(chan radarResult, 1),
		refsOf: map[string]bool{}, works: map[string]worktrees.Side{}, seen: map[string][2]string{}, known: map[string]state.Conflict{},
		remoteBases: map[string]worktrees.Side{}}
}

// radarJob is one pass: the team's worktrees, which of them to read again,
// and the works of each pair last merged.
type radarJob struct {
	worktrees []state.Worktree
	dirty     map[string]bool
	works     map[string]worktrees.Side // each member's work as last read
	seen      map[string][2]string
	refsOf    map[string]bool // the members whose branch files are followed already
	// remote are the worktrees on other hosts, fetched here to be read
	// (their hosts in hosts; this machine's repository is where localCwd
	// is), and remoteBases their bases as last fetched.
	remote      []state.RemoteWorktree
	hosts       []state.Host
	localCwd    string
	team        string
	remoteBases map[string]worktrees.Side
}

// radarResult is what a pass found.
type radarResult struct {
	members []string // the members with worktrees the pass looked at
	works   map[string]worktrees.Side
	merged  []pairMerge
	unread  map[string]string   // member: why its work could not be read
	refs    map[string][]string // member: the files of its branch, found now
	err     error               // git cannot tell at all
	// remoteBases: the bases of the members on other hosts, as fetched.
	remoteBases map[string]worktrees.Side
}

// pairMerge is one pair merged: two members, or a member and its base
// branch (base).
type pairMerge struct {
	a, b  string
	keys  [2]string // the works merged (Side.Key)
	merge worktrees.Merge
	err   error
	base  bool // b is a's base branch
	moved int  // base: its commits since a left it
}

func pairKey(a, b string) string { return a + "\x00" + b }

// turnEnded notes that member's turn ended: its work may have changed. Cheap,
// as it runs on the loop: a mark and, when none runs, a timer.
func (s *daemon) turnEnded(member string) {
	s.usageSoon()
	r := s.radar
	if r == nil || r.off {
		return
	}
	if _, remote := s.st.RemoteWorktree(member); !remote && !slices.ContainsFunc(s.st.Worktrees, func(w state.Worktree) bool { return w.Member == member }) {
		return
	}
	r.dirty[member] = true
	s.radarSoon()
}

// radarSoon starts the debounce, unless it runs or a pass is under way (its
// end starts it again).
func (s *daemon) radarSoon() {
	r := s.radar
	if r.timer != nil || r.busy {
		return
	}
	r.timer = s.clock.AfterFunc(radarDebounce, func() {
		select {
		case r.fire <- struct{}{}:
		default:
		}
	})
}

// radarFired hands the marked members to the worker.
func (s *daemon) radarFired() {
	r := s.radar
	r.timer = nil
	if r.busy || len(r.dirty) == 0 {
		return
	}
	job := radarJob{worktrees: slices.Clone(s.st.Worktrees), dirty: r.dirty, works: maps.Clone(r.works), seen: maps.Clone(r.seen), refsOf: maps.Clone(r.refsOf),
		remote: slices.Clone(s.st.RemoteWorktrees), hosts: slices.Clone(s.st.Hosts), localCwd: s.st.LocalCwd(), team: s.team, remoteBases: maps.Clone(r.remoteBases)}
	r.dirty = map[string]bool{}
	r.busy = true
	r.jobs <- job
}

// radarWorker runs the radar's passes, off the loop.
func (s *daemon) radarWorker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case job := <-s.radar.jobs:
			res := s.radar.pass(ctx, job)
			select {
			case s.radar.done <- res:
			case <-ctx.Done():
				return
			}
		}
	}
}

// pass reads the marked members' work and merges each pair whose work
// changed since it was last merged, and each member with its base branch,
// one pair at a time.
func (r *radar) pass(ctx context.Context, job radarJob) radarResult {
	res := radarResult{works: map[string]worktrees.Side{}, unread: map[string]string{}, refs: map[string][]string{}, remoteBases: map[string]worktrees.Side{}}
	if res.err = r.git.Check(ctx); res.err != nil {
		return res
	}
	var sides []worktrees.Side
	var names []string // names[i]: whose sides[i] is
	baseOf := map[string]int{}
	baseSide := map[string]int{} // main and recorded base: its side, -1 for none
	for _, wt := range job.worktrees {
		res.members = append(res.members, wt.Member)
		if !job.refsOf[wt.Member] {
			if files, err := r.git.RefFiles(ctx, wt); err == nil {
				res.refs[wt.Member] = files
			}
		}
		side, ok := job.works[wt.Member]
		if job.dirty[wt.Member] || !ok {
			var err error
			if side, err = r.git.ReadWork(ctx, wt); err != nil {
				res.unread[wt.Member] = err.Error()
				continue
			}
		}
		res.works[wt.Member] = side
		mi := len(sides)
		sides = append(sides, side)
		names = append(names, wt.Member)
		// Members on one base (most teams) share its side: found once a pass.
		key := wt.Main + "\x00" + wt.Base
		bi, found := baseSide[key]
		if !found {
			bi = -1
			if b, ok, err := r.git.Base(ctx, wt); ok && err == nil {
				bi = len(sides)
				sides = append(sides, b)
				names = append(names, "")
			}
			baseSide[key] = bi
		}
		if bi >= 0 {
			baseOf[wt.Member] = bi
			// Work that is all in its base (merged) is in no pair.
			sides[mi].BaseHead = sides[bi].Head
		}
	}
	// The members on other hosts: their work fetched here (over ssh, so
	// only when marked), each with its base there.
	for _, rw := range job.remote {
		res.members = append(res.members, rw.Member)
		side, ok := job.works[rw.Member]
		base, hasBase := job.remoteBases[rw.Member]
		if job.dirty[rw.Member] || !ok {
			h := state.Host{}
			for _, x := range job.hosts {
				if x.Name == rw.Host {
					h = x
				}
			}
			var err error
			if side, base, hasBase, err = r.git.ReadRemote(ctx, job.localCwd, h, rw, job.team); err != nil {
				res.unread[rw.Member] = err.Error()
				continue
			}
		}
		res.works[rw.Member] = side
		mi := len(sides)
		sides = append(sides, side)
		names = append(names, rw.Member)
		if hasBase {
			res.remoteBases[rw.Member] = base
			baseOf[rw.Member] = len(sides)
			sides = append(sides, base)
			names = append(names, "")
			sides[mi].BaseHead = base.Head
		}
	}
	var pairs [][2]int
	var meta []pairMerge
	for _, p := range worktrees.Pairs(sides) {
		a, b := p[0], p[1]
		if names[a] == "" || names[b] == "" {
			continue // a base, paired below with its member only
		}
		keys := [2]string{sides[a].Key(), sides[b].Key()}
		if job.seen[pairKey(names[a], names[b])] == keys {
			continue
		}
		pairs = append(pairs, p)
		meta = append(meta, pairMerge{a: names[a], b: names[b], keys: keys})
	}
	for i, name := range names {
		bi, ok := baseOf[name]
		if name == "" || !ok {
			continue
		}
		keys := [2]string{sides[i].Key(), sides[bi].Key()}
		if job.seen[baseKey(name)] == keys {
			continue
		}
		pairs = append(pairs, [2]int{i, bi})
		meta = append(meta, pairMerge{a: name, b: sides[bi].Name, keys: keys, base: true})
	}
	if len(pairs) == 0 {
		return res
	}
	got, err := r.git.Compare(ctx, sides, pairs)
	for k := range meta {
		m := meta[k]
		switch {
		case err != nil:
			m.err = err
		default:
			m.merge, m.err, m.moved = got[k].Merge, got[k].Err, got[k].Behind
		}
		res.merged = append(res.merged, m)
	}
	return res
}

// baseKey is the key in seen and known of a member with its base.
func baseKey(member string) string { return member + "\x00\x01base" }

// radarDone takes a pass's findings on the loop: events for the conflicts
// new and gone, live.json, the lead told.
func (s *daemon) radarDone(ctx context.Context, res radarResult) {
	r := s.radar
	r.busy = false
	if res.err != nil {
		r.off = true
		s.event(state.Event{Kind: state.EventSupervisor, Detail: "no conflict radar: " + res.err.Error()})
		return
	}
	r.works = res.works
	r.remoteBases = res.remoteBases
	for m, files := range res.refs {
		if s.files != nil {
			s.files.FollowRefs(files)
		}
		r.refsOf[m] = true
	}
	for m, why := range res.unread {
		s.log.Warn("conflict radar: work not read", "member", m, "err", why)
	}
	changed := false
	for key, c := range r.known {
		// A member whose worktree is gone (cleaned, or a teammate gone with
		// it) is compared no more: its conflicts end here.
		who := c.Members[:]
		if c.Base {
			who = who[:1] // the other is a branch
		}
		if gone := slices.IndexFunc(who, func(m string) bool { return !slices.Contains(res.members, m) }); gone >= 0 {
			delete(r.known, key)
			delete(r.seen, key)
			s.event(state.Event{Kind: state.EventConflictResolved, Member: c.Members[0], Other: c.Members[1], Files: c.Files,
				Detail: fmt.Sprintf("%s's and %s's work are compared no more: %s has no worktree now", c.Members[0], c.Members[1], c.Members[gone])})
			changed = true
		}
	}
	for _, p := range res.merged {
		if p.err != nil {
			s.log.Warn("conflict radar: merge", "members", p.a+" "+p.b, "err", p.err)
			continue
		}
		key := pairKey(p.a, p.b)
		if p.base {
			key = baseKey(p.a)
		}
		r.seen[key] = p.keys
		var files, kinds []string
		if !p.base || p.moved != 0 { // a base not moved on is in the member's history: nothing to merge
			for _, c := range p.merge.Conflicts {
				files = append(files, c.Path)
				kinds = append(kinds, fmt.Sprintf("%s (%s)", c.Path, c.Kind))
			}
		}
		was, had := r.known[key]
		whose := fmt.Sprintf("%s's and %s's work", p.a, p.b)
		if p.base {
			whose = fmt.Sprintf("%s's work and its base %s (moved on since it started)", p.a, p.b)
		}
		switch {
		case len(files) > 0 && (!had || !slices.Equal(was.Files, files) || was.Members[1] != p.b):
			r.known[key] = state.Conflict{Members: [2]string{p.a, p.b}, Files: files, Since: s.clock.Now().UTC(), Base: p.base}
			s.event(state.Event{Kind: state.EventConflict, Member: p.a, Other: p.b, Files: files,
				Detail: fmt.Sprintf("%s would conflict if merged, in %s", whose, strings.Join(kinds, ", "))})
			s.tellLeadOfConflict(ctx, p, "conflict", whose+" would conflict if merged", files)
			changed = true
		case len(files) == 0 && had:
			delete(r.known, key)
			s.event(state.Event{Kind: state.EventConflictResolved, Member: p.a, Other: was.Members[1], Files: was.Files,
				Detail: fmt.Sprintf("%s no longer conflict (they did in %s)", whose, strings.Join(was.Files, ", "))})
			s.tellLeadOfConflict(ctx, p, "conflict-resolved", whose+" no longer conflict", was.Files)
			changed = true
		}
	}
	if changed {
		s.live.Conflicts = s.live.Conflicts[:0]
		for _, c := range r.known {
			s.live.Conflicts = append(s.live.Conflicts, c)
		}
		slices.SortFunc(s.live.Conflicts, func(a, b state.Conflict) int {
			return strings.Compare(pairKey(a.Members[0], a.Members[1]), pairKey(b.Members[0], b.Members[1]))
		})
		s.saveLive()
	}
	if len(r.dirty) > 0 {
		s.radarSoon() // turns that ended during the pass
	}
}

// branchMoved is the file watch saying a member's branch moved: which one
// it does not say, so every member's work is marked (reading the ones that
// did not move finds the same commits, and merges nothing).
func (s *daemon) branchMoved() {
	for _, wt := range s.st.Worktrees {
		s.turnEnded(wt.Member)
	}
}

// remoteWorkSoon marks the work of the members on other hosts: no file
// watch follows their branches there, so the heartbeat looks again.
func (s *daemon) remoteWorkSoon() {
	for _, rw := range s.st.RemoteWorktrees {
		s.turnEnded(rw.Member)
	}
}

// radarResume takes the conflicts a previous supervisor found (live.json),
// so they are not reported again, and looks at every member's work once.
func (s *daemon) radarResume(prev *state.Live) {
	r := s.radar
	if r == nil {
		return
	}
	if prev != nil {
		for _, c := range prev.Conflicts {
			key := pairKey(c.Members[0], c.Members[1])
			if c.Base {
				key = baseKey(c.Members[0])
			}
			r.known[key] = c
		}
		s.live.Conflicts = slices.Clone(prev.Conflicts)
	}
	for _, wt := range s.st.Worktrees {
		r.dirty[wt.Member] = true
	}
	for _, rw := range s.st.RemoteWorktrees {
		r.dirty[rw.Member] = true
	}
	if len(r.dirty) > 0 {
		s.radarSoon()
	}
}

// tellLeadOfConflict tells the lead, when the layout says review.tellLead,
// in Claude Code's <task-notification> form as stalls are told.
func (s *daemon) tellLeadOfConflict(ctx context.Context, p pairMerge, status, summary string, files []string) {
	if s.lay == nil || !s.lay.Review.TellLead || s.notifier.leadPane() == "" {
		return
	}
	members := p.a + ", " + p.b
	if p.base {
		members = p.a // and its base, which the summary names
	}
	text := fmt.Sprintf("<task-notification><members>%s</members><status>%s</status><summary>%s</summary><files>%s</files></task-notification>",
		members, status, summary, strings.Join(files, ", "))
	s.notifier.queue(ctx, text, "told the lead: ")
}
