// Package proc is teamctl's dealing with processes: it reads Linux's /proc for
// what signals alone cannot tell (whether a process or group still has a
// living, not zombie, member; how a zombie ended; who carries a team's socket),
// and ends processes with one stop loop (End: SIGTERM, a grace, SIGKILL) for
// single processes, process groups, trees and strays alike.
package proc

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Stat is the part of /proc/PID/stat teamctl uses. This is the one parser of
// that file: the command name may hold spaces and parentheses, so fields are
// counted from the last ')'.
type Stat struct {
	PID   int
	State byte // R, S, D, Z, T, …
	PPID  int
	PGID  int
	// UTime, STime, CUTime and CSTime are fields 14 to 17: CPU time of the
	// process and of its reaped children, in clock ticks (0 when the line
	// stops short of them).
	UTime, STime, CUTime, CSTime int64
	// StartTime is field 22 (clock ticks after boot), which with the pid
	// names one process for good: pids are reused, start times not. "" when
	// the line stops short of it.
	StartTime string
	// ExitCode is field 52, the wait status of a process that has exited
	// (Linux >= 3.5); readable while it is a zombie nobody has reaped yet.
	ExitCode int
	HasExit  bool
}

// Living reports whether the process st describes is alive: neither a
// zombie nor dead.
func (st Stat) Living() bool { return st.State != 'Z' && st.State != 'X' }

// ReadStat parses /proc/PID/stat.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return parseStat(pid, string(b))
}

func parseStat(pid int, s string) (Stat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return Stat{}, syscall.EINVAL
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 3 {
		return Stat{}, syscall.EINVAL
	}
	// f[0] is field 3 (state), so field n is f[n-3].
	field := func(n int) string {
		if n-3 < len(f) {
			return f[n-3]
		}
		return ""
	}
	num := func(n int) int64 { v, _ := strconv.ParseInt(field(n), 10, 64); return v }
	st := Stat{
		PID: pid, State: f[0][0], PPID: int(num(4)), PGID: int(num(5)),
		UTime: num(14), STime: num(15), CUTime: num(16), CSTime: num(17),
		StartTime: field(22),
	}
	if code, err := strconv.Atoi(field(52)); err == nil {
		st.ExitCode, st.HasExit = code, true
	}
	return st, nil
}

// ChildAlive reports whether pid is a living (not zombie) child of parent.
func ChildAlive(pid, parent int) bool {
	st, err := ReadStat(pid)
	return err == nil && st.PPID == parent && st.Living()
}

// ZombieStatus reads how pid ended while it is a zombie child of parent (not
// yet reaped): its exit status, or the signal that killed it. ok is false when
// pid is not such a zombie (running, reaped, or another parent's: a reused pid).
// tmux sometimes marks a pane dead without ever learning its program's status,
// which then lingers as a zombie of the tmux server; this is how it is still
// known.
func ZombieStatus(pid, parent int) (code *int, sig int, ok bool) {
	st, err := ReadStat(pid)
	if err != nil || st.State != 'Z' || st.PPID != parent || !st.HasExit {
		return nil, 0, false
	}
	ws := syscall.WaitStatus(st.ExitCode)
	switch {
	case ws.Exited():
		c := ws.ExitStatus()
		return &c, 0, true
	case ws.Signaled():
		return nil, int(ws.Signal()), true
	}
	return nil, 0, false
}

// GroupAlive reports whether any process of group pgid is alive. A zombie is not:
// kill(-pgid, 0) would still succeed on one that nobody has reaped yet.
func GroupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	return LiveGroups()[pgid]
}

// LiveGroups returns the process groups that have at least one living (not
// zombie) process, from one pass over /proc.
func LiveGroups() map[int]bool {
	live := map[int]bool{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return live
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := ReadStat(pid)
		if err == nil && st.Living() {
			live[st.PGID] = true
		}
	}
	return live
}

// Alive reports whether pid is a living (not zombie) process.
func Alive(pid int) bool {
	st, err := ReadStat(pid)
	return err == nil && st.Living()
}

// Cmdline returns the argv of pid.
func Cmdline(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return nil, err
	}
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\x00"), nil
}

// Cwd returns the folder pid runs in, as the kernel says (the target of
// /proc/PID/cwd: never a symlink on the way).
func Cwd(pid int) (string, error) {
	return os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
}

// Environ returns the environment pid started with, as a map.
func Environ(pid int) (map[string]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env, nil
}

// Matching returns the pids of this user's living processes whose
// environment satisfies match, leaving out this process and its ancestors (a
// `teamctl down` run from inside a team's pane must not end itself halfway).
// Another user's process never matches, whatever its environment says (run
// as root, teamctl could read it): nothing is signalled whose ownership was
// not checked.
func Matching(match func(env map[string]string) bool) []int {
	skip := Lineage()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || skip[pid] || pid == 1 || !Alive(pid) || !Owned(pid) {
			continue
		}
		env, err := Environ(pid)
		if err == nil && match(env) {
			out = append(out, pid)
		}
	}
	return out
}

// Tree returns pid and all its living descendants, from one pass over /proc,
// parents before their children.
func Tree(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := ReadStat(p); err == nil && st.Living() {
			children[st.PPID] = append(children[st.PPID], p)
		}
	}
	var out []int
	if Alive(pid) {
		out = append(out, pid)
	}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// StartTime returns field 22 of /proc/PID/stat (Stat.StartTime).
func StartTime(pid int) (string, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return "", err
	}
	if st.StartTime == "" {
		return "", syscall.EINVAL
	}
	return st.StartTime, nil
}

// Lineage is this process and its ancestors (init left out): what a command
// that ends processes must spare, when it runs inside what it ends.
func Lineage() map[int]bool {
	own := map[int]bool{}
	for pid := os.Getpid(); pid > 1; {
		own[pid] = true
		st, err := ReadStat(pid)
		if err != nil {
			break
		}
		pid = st.PPID
	}
	return own
}

// Owned reports whether pid is a process of this user (its /proc entry's
// owner is this process's real uid).
func Owned(pid int) bool {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/"+strconv.Itoa(pid), &st); err != nil {
		return false
	}
	return int(st.Uid) == os.Getuid()
}
