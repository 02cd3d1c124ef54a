package supervisor

// stopRequested holds member name, which a person is stopping (`teamctl
// stop` records a stop-requested event, then waits for the hold in
// live.json before it ends the member): held and stopped, as a member its
// budget stopped is, nothing of the daemon's restarts it or types into it
// until `teamctl start` releases it (a released event: release, which starts
// it again). A name that is no member of the team is not held.
func (s *daemon) stopRequested(name, why string) {
	if _, ok := s.st.Member(name); !ok || s.heldMember(name) {
		if h, held := s.live.HeldMember(name); held && !h.Stopped {
			h.Stopped = true // held for its budget, now stopped too: start lets it go
			s.live.Budgets.Held[name] = h
			s.saveLive()
		}
		return
	}
	if why == "" {
		why = "stopped by a person"
	}
	s.hold(name, s.watchOf(name), why, true)
	s.saveLive()
}
