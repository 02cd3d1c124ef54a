package worktrees

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/adler32"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A folder's tree without an index. stateTreeOf makes it with three git
// commands a folder (a copy of its index, add, write-tree): most of the
// conflict radar's processor time, as git reads and writes the whole index
// twice to change a few entries. The tree is HEAD's with each file status
// listed set as the folder has it, and status says nearly all of it already:
// a file whose folder state is its index's ("M.") has its index's id and
// mode, one gone from the folder is out. Only the files changed in the folder
// are hashed: here when git would store them as they are (rawBlobs), else
// with one `hash-object -w --stdin-paths` a folder (git's own filters on
// them, as add's). The trees on their paths are made here from HEAD's, read
// through one `cat-file --batch` for every folder of a repository as each
// folder is read (treeMaker), and written with the files hashed here by one
// `unpack-objects` for them all. On this 2-core machine, bench/radar's 8
// folders: 150 -> 101 ms of processor time with what a member changed made
// of its head's diff and these paths (headchanges.go).
//
// Whatever this cannot make as add and write-tree would is left to them
// (planTree says no): unmerged files, submodules, symlinks changed in the
// folder (one staged is taken from the index), a new file with an execute
// bit (whether git keeps it depends on core.fileMode), a file with a
// carriage return (autocrlf keeps one in a file whose index's copy has one,
// which only add looks at), a changed .gitattributes, a sparse checkout,
// names git's line protocols cannot carry, HEAD trees in modes the index
// would not keep.

// treePlan is how a folder's tree is made from HEAD's: each path status
// listed, as the folder has it.
type treePlan struct {
	head string
	set  map[string]treeEntry // path: its entry; mode "" when it is out
	// fallback is what stateTreeOf takes when the plan cannot be carried
	// out (a git command of the batch failed).
	fallback []string
	// blobs are the contents of the files hashed here (rawBlobs), to be
	// written with the trees.
	blobs []string
}

// treeEntry is a file's entry in a tree: its mode as git writes it and its
// object's id (hex).
type treeEntry struct{ mode, id string }

const (
	modeNone = "000000"
	modeFile = "100644"
	modeExec = "100755"
	modeTree = "40000"
)

// errNoPlan: the folder's tree is left to add and write-tree.
var errNoPlan = errors.New("no plan")

// planTree plans the tree of the folder at top (HEAD head) from what status
// listed of it (entries), leaving out what leftOut names, and hashes the
// files changed in the folder (rawBlobs, else hash-object); add is what
// stateTreeOf would take. It is errNoPlan when the tree is to be left to add
// and write-tree.
func planTree(ctx context.Context, m *treeMaker, top, head string, entries []statusEntry, leftOut []LeftOut, add []string) (*treePlan, error) {
	gitdir, err := checkoutGitDir(top)
	if err != nil {
		return nil, errNoPlan
	}
	for _, f := range []string{filepath.Join(gitdir, "info", "sparse-checkout"), filepath.Join(gitdir, "..", "..", "info", "sparse-checkout")} {
		if _, err := os.Lstat(f); err == nil {
			return nil, errNoPlan // attributes may come from files not in the folder
		}
	}
	skip := map[string]bool{}
	for _, l := range leftOut {
		skip[l.Path] = true
	}
	p := &treePlan{head: head, set: map[string]treeEntry{}, fallback: add}
	var hashed, contents []string
	root, err := os.OpenRoot(top)
	if err != nil {
		return nil, errNoPlan
	}
	defer root.Close()
	fromFolder := func(name, mode string) error {
		if strings.ContainsAny(name, "\n\r") || strings.HasPrefix(name, `"`) {
			return errNoPlan // hash-object --stdin-paths takes a line, unquoting a quoted one
		}
		b, err := readPlain(root, name)
		if err != nil || bytes.IndexByte(b, '\r') >= 0 {
			return errNoPlan // gone or changed since status, or autocrlf may keep or drop it
		}
		p.set[name] = treeEntry{mode: mode}
		hashed, contents = append(hashed, name), append(contents, string(b))
		return nil
	}
	for _, e := range entries {
		if e.kind == 'u' || e.sub != "N..." && e.kind != '?' || path.Base(e.path) == ".gitattributes" || path.Base(e.orig) == ".gitattributes" {
			return nil, errNoPlan
		}
		if strings.Contains(e.path+e.orig, "\n") {
			return nil, errNoPlan // cat-file --batch takes a line
		}
		switch {
		case e.kind == '?':
			if skip[e.path] || strings.HasSuffix(e.path, "/") {
				continue // left out (a folder listed is a repository of its own)
			}
			fi, err := os.Lstat(filepath.Join(top, e.path))
			if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o100 != 0 {
				return nil, errNoPlan
			}
			if err := fromFolder(e.path, modeFile); err != nil {
				return nil, err
			}
			continue
		case e.modeH == "160000" || e.modeI == "160000" || e.modeW == "160000":
			return nil, errNoPlan
		}
		if e.kind == '2' {
			if e.xy[1] == 'R' || e.xy[1] == 'C' {
				return nil, errNoPlan // a rename in the folder (of an intent to add)
			}
			if e.xy[0] == 'R' {
				p.set[e.orig] = treeEntry{} // the index has it no more
			}
		}
		switch {
		case skip[e.path] || e.xy[1] == '.':
			// As the index has it: left out, or the folder's file is the
			// index's. Not in the index (an intent to add is not): out.
			switch e.modeI {
			case modeNone:
				p.set[e.path] = treeEntry{}
			case modeFile, modeExec, "120000":
				p.set[e.path] = treeEntry{mode: e.modeI, id: e.idI}
			default:
				return nil, errNoPlan
			}
		case e.modeW == modeNone:
			p.set[e.path] = treeEntry{} // gone from the folder
		case e.modeW == modeFile || e.modeW == modeExec:
			// Status's mode for the folder's file is add's (core.fileMode
			// and core.symlinks applied).
			if err := fromFolder(e.path, e.modeW); err != nil {
				return nil, err
			}
		default:
			return nil, errNoPlan
		}
	}
	if len(hashed) > 0 && m.rawBlobs(ctx, top, gitdir, hashed) {
		newHash := hashOf(head)
		for i, name := range hashed {
			e := p.set[name]
			e.id = objectID(newHash(), "blob", contents[i])
			p.set[name] = e
		}
		p.blobs = contents
	} else if len(hashed) > 0 {
		out, err := gitEnv(ctx, top, nil, strings.Join(hashed, "\n")+"\n", "hash-object", "-w", "--stdin-paths")
		if err != nil {
			return nil, errNoPlan // add says why, if it fails too
		}
		ids := strings.Fields(out)
		if len(ids) != len(hashed) {
			return nil, fmt.Errorf("git hash-object of %d files said %q", len(hashed), out)
		}
		for i, name := range hashed {
			e := p.set[name]
			e.id = ids[i]
			p.set[name] = e
		}
	}
	return p, nil
}

// maxRawBlob is the largest file a tree is made with here (rawBlobs), kept
// in memory until the trees are written: a folder with a larger file
// changed is left to add, which never holds a file whole.
const maxRawBlob = 1 << 20

// readPlain reads the regular file name in root, a worktree a member
// writes: never through a link (the file itself one since status read it,
// or a folder on its way out of the worktree: os.Root), never more than
// maxRawBlob (errNoPlan).
func readPlain(root *os.Root, name string) ([]byte, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxRawBlob {
		return nil, errNoPlan
	}
	b, err := io.ReadAll(io.LimitReader(f, maxRawBlob+1))
	if err == nil && len(b) > maxRawBlob {
		err = errNoPlan // grew since
	}
	return b, err
}

// rawBlobs reports whether git would store the folder's files named as
// they are: then they are hashed here and written with the
// trees, and the folder needs no hash-object of its own (1.3 ms of processor
// time a folder). So when no file of them has a carriage return (autocrlf)
// and no attributes can apply to them (a filter, an encoding, ident, text):
// no .gitattributes in their folders (whether git tracks it or not), none in
// the repository's info folder, no global or system attributes file, no
// per-worktree config; files up to maxRawBlob.
func (m *treeMaker) rawBlobs(ctx context.Context, top, gitdir string, names []string) bool {
	if m == nil || !m.noAttributes(ctx) {
		return false
	}
	common := gitdir
	if b, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		if common = strings.TrimSpace(string(b)); !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	for _, f := range []string{filepath.Join(common, "info", "attributes"), filepath.Join(gitdir, "config.worktree")} {
		if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		for d := parentDir(n); !seen[d]; d = parentDir(d) {
			seen[d] = true
			if _, err := os.Lstat(filepath.Join(top, d, ".gitattributes")); !errors.Is(err, fs.ErrNotExist) {
				return false
			}
			if d == "" {
				break
			}
		}
	}
	return true
}

// noAttributes reports, once for the maker, whether git reads no attributes
// but the repository's own: core.attributesFile unset, no default global
// file, no system file where git's prefix puts it.
func (m *treeMaker) noAttributes(ctx context.Context) bool {
	m.attrOnce.Do(func() {
		out, err := git(ctx, m.dir, "config", "--get", "core.attributesFile")
		var ge *GitError
		if !errors.As(err, &ge) || strings.TrimSpace(out) != "" || strings.TrimSpace(ge.Stderr) != "" {
			return // set, or config could not be read: exit 1 with nothing said is "unset"
		}
		files := []string{"/etc/gitattributes"}
		if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
			files = append(files, filepath.Join(x, "git", "attributes"))
		}
		if h := os.Getenv("HOME"); h != "" {
			files = append(files, filepath.Join(h, ".config", "git", "attributes"))
		}
		if bin, err := exec.LookPath("git"); err == nil {
			if real, err := filepath.EvalSymlinks(bin); err == nil {
				// <prefix>/bin/git: its system files are in <prefix>/etc.
				files = append(files, filepath.Join(filepath.Dir(filepath.Dir(real)), "etc", "gitattributes"))
			}
		}
		for _, f := range files {
			if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
				return
			}
		}
		m.attrNone = true
	})
	return m.attrNone
}

// treeMaker makes the trees of plans of one repository as each folder is
// read, from HEAD's trees read through one `cat-file --batch` it keeps
// running (each tree read once, whichever folder asks), and writes them all
// at the end (finish) with one `unpack-objects`: the reading of HEAD's trees
// and the making of a folder's run while other folders' status runs, not
// after them all.
type treeMaker struct {
	dir string
	mu  sync.Mutex
	// The cat-file, started at the first tree asked for.
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	cancel  context.CancelFunc
	started time.Time
	err     error             // the cat-file's failure: every tree asked for after it fails
	bodies  map[string]string // tree (or "<commit>^{tree}"): its id and content, "id\x00content"
	written []string          // the contents of the trees made that HEAD does not have
	newHash func() hash.Hash
	blobs   []string // the contents of files hashed here, to be written with the trees

	attrOnce sync.Once
	attrNone bool // noAttributes
}

func newTreeMaker(dir string) *treeMaker {
	return &treeMaker{dir: dir, bodies: map[string]string{}}
}

// tree reads the tree name names (an id, or "<commit>^{tree}"): its id and
// its content; "" and "" for what is no tree.
func (m *treeMaker) tree(ctx context.Context, name string) (id, body string, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.bodies[name]; ok {
		id, body, _ = strings.Cut(b, "\x00")
		return id, body, nil
	}
	if m.err != nil {
		return "", "", m.err
	}
	if m.cmd == nil {
		if m.err = m.start(ctx); m.err != nil {
			return "", "", m.err
		}
	}
	id, body, err = m.ask(name)
	if err != nil {
		m.err = fmt.Errorf("git cat-file --batch (in %s): %w", m.dir, err)
		return "", "", m.err
	}
	m.bodies[name] = id + "\x00" + body
	return id, body, nil
}

// start starts the cat-file; m.cmd is set only when it runs (finish then
// ends it), given gitTimeout as every git command.
func (m *treeMaker) start(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	cmd := gitCommand(ctx, m.dir, nil, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		cancel()
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err == nil {
		m.started = time.Now()
		err = cmd.Start()
	}
	if err != nil {
		cancel()
		return fmt.Errorf("git cat-file --batch (in %s): %w", m.dir, err)
	}
	m.cmd, m.in, m.out, m.cancel = cmd, in, bufio.NewReaderSize(stdout, 64<<10), cancel
	return nil
}

// ask asks the cat-file for one object and reads its answer.
func (m *treeMaker) ask(name string) (id, body string, err error) {
	if _, err := io.WriteString(m.in, name+"\n"); err != nil {
		return "", "", err
	}
	line, err := m.out.ReadString('\n')
	if err != nil {
		return "", "", err
	}
	f := strings.Fields(line)
	if len(f) == 2 && f[1] == "missing" {
		return "", "", nil
	}
	if len(f) != 3 {
		return "", "", fmt.Errorf("unexpected %.80q", line)
	}
	size, err := strconv.Atoi(f[2])
	if err != nil || size < 0 {
		return "", "", fmt.Errorf("unexpected %.80q", line)
	}
	b := make([]byte, size+1)
	if _, err := io.ReadFull(m.out, b); err != nil {
		return "", "", err
	}
	if f[1] != "tree" {
		return "", "", nil // a file in HEAD where the folder has a folder now: replaced
	}
	return f[0], string(b[:size]), nil
}

// make makes the tree of plan p: HEAD's, with p's paths set, and says what
// each of p's paths is in HEAD and in the tree. The trees it made are
// written by finish.
func (m *treeMaker) make(ctx context.Context, p *treePlan) (string, map[string]folderEdit, error) {
	if !isObjectID(p.head) {
		return "", nil, fmt.Errorf("%q is no commit id", p.head)
	}
	rawLen := len(p.head) / 2
	newHash := hashOf(p.head)
	// The folders above p's paths, the top ("") among them, each with
	// what changes in it.
	edits := map[string]map[string]treeEntry{}
	for name, e := range p.set {
		d := parentDir(name)
		for {
			if edits[d] == nil {
				edits[d] = map[string]treeEntry{}
			}
			if d == "" {
				break
			}
			d = parentDir(d)
		}
		edits[parentDir(name)][path.Base(name)] = e
	}
	dirs := make([]string, 0, len(edits))
	for d := range edits {
		dirs = append(dirs, d)
	}
	// HEAD's tree of each, the top first.
	sort.Slice(dirs, func(a, b int) bool {
		if na, nb := depth(dirs[a]), depth(dirs[b]); na != nb {
			return na < nb
		}
		return dirs[a] < dirs[b]
	})
	type folder struct{ id, body string }
	inHead := map[string]folder{}
	for _, d := range dirs {
		var f folder
		var err error
		if d == "" {
			f.id, f.body, err = m.tree(ctx, p.head+"^{tree}")
		} else if parent := inHead[parentDir(d)]; parent.id != "" {
			if mode, id, ok := lookup(parent.body, path.Base(d), rawLen); ok && mode == modeTree {
				f.id, f.body, err = m.tree(ctx, id)
			} // else not a folder in HEAD: a new one
		}
		if err != nil {
			return "", nil, err
		}
		inHead[d] = f
	}
	edited := make(map[string]folderEdit, len(p.set))
	for name, e := range p.set {
		var head treeEntry
		if mode, id, ok := lookup(inHead[parentDir(name)].body, path.Base(name), rawLen); ok && mode != modeTree {
			head = treeEntry{mode: mode, id: id}
		}
		edited[name] = folderEdit{head: head, work: e}
	}
	// Then the deepest first: a folder's tree before its parent's.
	var made []string
	var root string
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		content, err := treeContent(inHead[d].body, edits[d], rawLen)
		if err != nil {
			return "", nil, err
		}
		id := objectID(newHash(), "tree", content)
		if d == "" {
			root = id
		} else {
			parentEdits, base := edits[parentDir(d)], path.Base(d)
			mode, _, inParent := lookup(inHead[parentDir(d)].body, base, rawLen)
			_, edited := parentEdits[base]
			switch {
			case content == "":
				if inParent && mode == modeTree && !edited {
					parentEdits[base] = treeEntry{} // git keeps no empty folder
				}
			case edited && parentEdits[base].mode != "" || inParent && mode != modeTree && !edited:
				// A file there that is not gone from the folder: status
				// said nothing of it.
				return "", nil, fmt.Errorf("%s is a file and a folder", d)
			default:
				parentEdits[base] = treeEntry{mode: modeTree, id: id}
			}
		}
		if (content != "" || d == "") && id != inHead[d].id {
			made = append(made, content)
		}
	}
	m.mu.Lock()
	m.written = append(m.written, made...)
	m.blobs = append(m.blobs, p.blobs...)
	m.newHash = newHash
	m.mu.Unlock()
	return root, edited, nil
}

// finish ends the cat-file and writes the trees made.
func (m *treeMaker) finish(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd != nil {
		m.in.Close()
		err := m.cmd.Wait()
		trace(m.cmd, m.cmd.Args[3:], time.Since(m.started))
		m.cancel()
		m.cmd = nil
		if m.err == nil && err != nil {
			m.err = fmt.Errorf("git cat-file --batch (in %s): %w", m.dir, err)
		}
	}
	if m.err != nil {
		return m.err
	}
	objs := make([]object, 0, len(m.written)+len(m.blobs))
	for _, c := range m.blobs {
		objs = append(objs, object{objBlob, c})
	}
	for _, c := range m.written {
		objs = append(objs, object{objTree, c})
	}
	if err := writeObjects(ctx, m.dir, objs, m.newHash); err != nil {
		return fmt.Errorf("write %d trees and %d files: %w", len(m.written), len(m.blobs), err)
	}
	return nil
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

func parentDir(d string) string {
	if p := path.Dir(d); p != "." {
		return p
	}
	return ""
}

// lookup finds name's entry in a tree's content: its mode and id (hex).
func lookup(body, name string, rawLen int) (mode, id string, ok bool) {
	for len(body) > 0 {
		m, n, end, err := nextEntry(body, rawLen)
		if err != nil {
			return "", "", false
		}
		if n == name {
			return m, hex.EncodeToString([]byte(body[end-rawLen : end])), true
		}
		body = body[end:]
	}
	return "", "", false
}

// nextEntry reads a tree's first entry: its mode, name, and where it ends.
func nextEntry(body string, rawLen int) (mode, name string, end int, err error) {
	nul := strings.IndexByte(body, 0)
	sp := strings.IndexByte(body, ' ')
	if nul < 0 || sp < 0 || sp > nul || nul+1+rawLen > len(body) {
		return "", "", 0, errors.New("a tree that cannot be read")
	}
	return body[:sp], body[sp+1 : nul], nul + 1 + rawLen, nil
}

// treeKey is what git sorts a tree's entries by: a folder's name as if it
// ended in "/".
func treeKey(name, mode string) string {
	if mode == modeTree {
		return name + "/"
	}
	return name
}

// treeContent is HEAD's tree content body with the entries of edits set
// (mode "": taken out), in git's order. HEAD's entries are taken as they
// are, in modes the index keeps only (a tree written otherwise is left to
// write-tree, which would write them its way).
func treeContent(body string, edits map[string]treeEntry, rawLen int) (string, error) {
	type add struct{ key, name string }
	var adds []add
	for n, e := range edits {
		if e.mode != "" {
			adds = append(adds, add{treeKey(n, e.mode), n})
		}
	}
	sort.Slice(adds, func(a, b int) bool { return adds[a].key < adds[b].key })
	var b strings.Builder
	b.Grow(len(body) + len(adds)*(40+rawLen))
	put := func(a add) error {
		e := edits[a.name]
		raw, err := hex.DecodeString(e.id)
		if err != nil || len(raw) != rawLen {
			return fmt.Errorf("%s: %q is no object id", a.name, e.id)
		}
		b.WriteString(e.mode + " " + a.name + "\x00")
		b.Write(raw)
		return nil
	}
	for len(body) > 0 {
		mode, name, end, err := nextEntry(body, rawLen)
		if err != nil {
			return "", err
		}
		switch mode {
		case modeFile, modeExec, "120000", "160000", modeTree:
		default:
			return "", errNoPlan
		}
		for k := treeKey(name, mode); len(adds) > 0 && adds[0].key < k; adds = adds[1:] {
			if err := put(adds[0]); err != nil {
				return "", err
			}
		}
		if _, edited := edits[name]; !edited {
			b.WriteString(body[:end])
		}
		body = body[end:]
	}
	for _, a := range adds {
		if err := put(a); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// objectID is the id git gives an object of type kind and content.
func objectID(h hash.Hash, kind, content string) string {
	fmt.Fprintf(h, "%s %d\x00", kind, len(content))
	h.Write([]byte(content))
	return hex.EncodeToString(h.Sum(nil))
}

// Object types in a pack.
const (
	objCommit = 1
	objTree   = 2
	objBlob   = 3
)

// object is an object to write: its type and content.
type object struct {
	kind    byte
	content string
}

// writeObjects writes objects with one git command, as a pack for `git unpack-objects` to unpack: no file an object
// (in bench/radar a file made in the temporary folder cost more than git's
// whole work on it); newHash is the repository's hash.
func writeObjects(ctx context.Context, dir string, objs []object, newHash func() hash.Hash) error {
	if len(objs) == 0 || newHash == nil {
		return nil
	}
	var pack bytes.Buffer
	pack.WriteString("PACK")
	n := len(objs)
	pack.Write([]byte{0, 0, 0, 2, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}) // version 2, n objects
	for _, o := range objs {
		// The object's header: its type and size, 7 bits a byte after the
		// first's 4.
		c := o.content
		n := len(c)
		b := o.kind<<4 | byte(n&0x0f)
		for n >>= 4; n > 0; n >>= 7 {
			pack.WriteByte(b | 0x80)
			b = byte(n & 0x7f)
		}
		pack.WriteByte(b)
		storedZlib(&pack, c)
	}
	h := newHash()
	h.Write(pack.Bytes())
	pack.Write(h.Sum(nil))
	_, err := gitEnv(ctx, dir, nil, pack.String(), "unpack-objects", "-q")
	return err
}

// storedZlib writes c to b as a zlib stream of stored (not compressed)
// blocks: git compresses each object it writes anyway, and a zlib.Writer
// allocates its compressor's 1 MB however little it compresses.
func storedZlib(b *bytes.Buffer, c string) {
	sum := adler32.Checksum([]byte(c))
	b.Write([]byte{0x78, 0x01}) // deflate, 32 KiB window, no dictionary
	for first := true; first || len(c) > 0; first = false {
		n := min(len(c), 0xffff)
		final := byte(0)
		if n == len(c) {
			final = 1
		}
		b.Write([]byte{final, byte(n), byte(n >> 8), ^byte(n), ^byte(n >> 8)})
		b.WriteString(c[:n])
		c = c[n:]
	}
	b.Write([]byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
}

// hashOf is the hash of a repository whose object ids are as long as id.
func hashOf(id string) func() hash.Hash {
	if len(id) == 2*sha256.Size {
		return sha256.New
	}
	return sha1.New
}
