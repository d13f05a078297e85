package deploydir_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gobpm/gobpm/internal/deploydir"
	"github.com/gobpm/gobpm/internal/runtime"
	"github.com/gobpm/gobpm/internal/store/sqlite"
)

// syncBuffer is a log sink the watcher's goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture is a runtime on SQLite in a temp dir and a folder to deploy.
type fixture struct {
	rt  *runtime.Runtime
	dir string
	log *syncBuffer
}

func setup(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gobpm.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := runtime.New(db, runtime.Options{})
	if err := rt.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	t.Cleanup(func() { _ = rt.Close() })
	return &fixture{rt: rt, dir: t.TempDir(), log: &syncBuffer{}}
}

func (f *fixture) watcher(t *testing.T, opts deploydir.Options) *deploydir.Watcher {
	t.Helper()
	opts.Dir = f.dir
	opts.Logger = slog.New(slog.NewTextHandler(f.log, nil))
	w, err := deploydir.New(f.rt, opts)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// write puts content at name below the folder (folders made as needed) and
// moves its modification time on, as an edit a second later would.
func (f *fixture) write(t *testing.T, name string, content []byte) {
	t.Helper()
	p := filepath.Join(f.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var mod time.Time
	if info, err := os.Stat(p); err == nil {
		mod = info.ModTime().Add(time.Second)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	if !mod.IsZero() {
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
}

func fixtureFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (f *fixture) versions(t *testing.T, key string) int {
	t.Helper()
	vs, err := f.rt.ProcessVersions(context.Background(), key)
	if err != nil {
		return 0
	}
	return len(vs)
}

func (f *fixture) decisionVersions(t *testing.T, key string) int {
	t.Helper()
	vs, err := f.rt.DecisionVersions(context.Background(), key)
	if err != nil {
		return 0
	}
	return len(vs)
}

func sync1(t *testing.T, w *deploydir.Watcher, settle bool, want deploydir.Outcome) {
	t.Helper()
	got, err := w.Sync(context.Background(), settle)
	if err != nil || got != want {
		t.Fatalf("Sync(settle=%v) = %v, %v; want %v", settle, got, err, want)
	}
}

// A folder deploys whole at start-up (a process with its form, a decision
// in a subfolder); a poll deploys again only once a change held still, and
// only what changed gets a new version; a refusal is logged with its
// problems, leaves the versions alone and is not retried until the
// content changes.
func TestSyncDeploysWhatChanged(t *testing.T) {
	t.Parallel()
	f := setup(t)
	parcel := fixtureFile(t, "parcel.bpmn")
	f.write(t, "parcel.bpmn", parcel)
	f.write(t, "parcel/pack.form", fixtureFile(t, "pack.form"))
	f.write(t, "rules/discount.dmn", fixtureFile(t, "discount.dmn"))
	f.write(t, "README.md", []byte("not a model"))
	f.write(t, ".parcel.bpmn.swp", []byte("an editor's file"))
	f.write(t, "..data/stale.bpmn", []byte("<not a model"))
	var events []deploydir.Event
	w := f.watcher(t, deploydir.Options{Report: func(e deploydir.Event) { events = append(events, e) }})

	sync1(t, w, false, deploydir.Deployed)
	if f.versions(t, "parcel") != 1 || f.decisionVersions(t, "discount") != 1 {
		t.Fatalf("after start: parcel %d, discount %d versions", f.versions(t, "parcel"), f.decisionVersions(t, "discount"))
	}
	if _, err := f.rt.Form(context.Background(), "parcel", 1, "pack-form"); err != nil {
		t.Errorf("the form deployed beside its process is not found: %v", err)
	}
	sync1(t, w, true, deploydir.Unchanged)

	// Touched, not changed: read again but not deployed.
	f.write(t, "parcel.bpmn", parcel)
	sync1(t, w, true, deploydir.Settling)
	sync1(t, w, true, deploydir.Unchanged)

	// Changed: deployed once it held still; the decision keeps its version.
	changed := bytes.Replace(parcel, []byte(`name="Ship a parcel"`), []byte(`name="Ship a parcel, tracked"`), 1)
	f.write(t, "parcel.bpmn", changed)
	sync1(t, w, true, deploydir.Settling)
	sync1(t, w, true, deploydir.Deployed)
	sync1(t, w, true, deploydir.Unchanged)
	if f.versions(t, "parcel") != 2 || f.decisionVersions(t, "discount") != 1 {
		t.Fatalf("after the change: parcel %d, discount %d versions", f.versions(t, "parcel"), f.decisionVersions(t, "discount"))
	}

	// Broken: refused, logged with the element, the versions stay.
	broken := bytes.Replace(changed, []byte(`<startEvent id="ordered"`), []byte(`<startEvent id="ordered"><bogus/></startEvent><startEvent id="ordered2"`), 1)
	f.write(t, "parcel.bpmn", broken)
	sync1(t, w, true, deploydir.Settling)
	sync1(t, w, true, deploydir.Refused)
	logged := f.log.String()
	if !strings.Contains(logged, "deployment problem") || !strings.Contains(logged, "resource=parcel.bpmn") || !strings.Contains(logged, `element="bogus (line 11)"`) {
		t.Errorf("the refusal's problems are not logged with their file and element:\n%s", logged)
	}
	sync1(t, w, true, deploydir.Unchanged) // not tried again
	if n := strings.Count(f.log.String(), "refused"); n != 1 {
		t.Errorf("the refusal is logged %d times, want once", n)
	}
	if f.versions(t, "parcel") != 2 {
		t.Fatalf("a refused folder changed the versions: %d", f.versions(t, "parcel"))
	}

	// Fixed: deployed (the content of version 2 again keeps version 2).
	f.write(t, "parcel.bpmn", changed)
	sync1(t, w, true, deploydir.Settling)
	sync1(t, w, true, deploydir.Deployed)
	if f.versions(t, "parcel") != 2 {
		t.Fatalf("the content of version 2 again made %d versions", f.versions(t, "parcel"))
	}

	// Reported: start, change, refusal, fix; nothing for the polls that
	// deployed nothing.
	var outcomes []deploydir.Outcome
	for _, e := range events {
		outcomes = append(outcomes, e.Outcome)
	}
	if want := []deploydir.Outcome{deploydir.Deployed, deploydir.Deployed, deploydir.Refused, deploydir.Deployed}; !slices.Equal(outcomes, want) {
		t.Fatalf("reported %v, want %v", outcomes, want)
	}
	if e := events[1]; e.DeploymentID == "" || !slices.Contains(e.Processes, runtime.DefinitionRef{Key: "parcel", Version: 2}) ||
		!slices.Contains(e.Decisions, runtime.DefinitionRef{Key: "discount", Version: 1}) {
		t.Errorf("the change was reported as %+v", e)
	}
	if e := events[2]; e.DeploymentID != "" || len(e.Problems) == 0 || e.Problems[0].Resource != "parcel.bpmn" {
		t.Errorf("the refusal was reported as %+v", e)
	}
}

// symlink makes a symbolic link at name below dir pointing at target.
func symlink(t *testing.T, dir, target, name string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

// writeVersion writes a Kubernetes volume's version folder ..<version>
// below dir: parcel.bpmn and forms/pack.form.
func writeVersion(t *testing.T, dir, version string, parcel []byte, mod time.Time) {
	t.Helper()
	v := filepath.Join(dir, ".."+version)
	if err := os.MkdirAll(filepath.Join(v, "forms"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string][]byte{"parcel.bpmn": parcel, "forms/pack.form": fixtureFile(t, "pack.form")} {
		p := filepath.Join(v, filepath.FromSlash(name))
		if err := os.WriteFile(p, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
}

// A folder laid out as Kubernetes mounts a ConfigMap — version folders
// ..<time>, a ..data link to the current one, top-level links into
// ..data, to files and, for an item in a subfolder, to a folder — deploys
// the current version's files under their top-level names, and deploys
// again when ..data is swapped to a new version, even one whose files have
// the sizes and times of the old. A link back up is not walked twice.
func TestSyncFollowsKubernetesVolumeLinks(t *testing.T) {
	t.Parallel()
	f := setup(t)
	mod := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	parcel := fixtureFile(t, "parcel.bpmn")
	writeVersion(t, f.dir, "2026_01_02_03_04_05.1", parcel, mod)
	symlink(t, f.dir, "..2026_01_02_03_04_05.1", "..data")
	symlink(t, f.dir, "..data/parcel.bpmn", "parcel.bpmn")
	symlink(t, f.dir, "..data/forms", "forms")
	symlink(t, f.dir, ".", "loop")
	var events []deploydir.Event
	w := f.watcher(t, deploydir.Options{Report: func(e deploydir.Event) { events = append(events, e) }})
	sync1(t, w, false, deploydir.Deployed)
	if f.versions(t, "parcel") != 1 {
		t.Fatalf("parcel has %d versions; log:\n%s", f.versions(t, "parcel"), f.log.String())
	}
	if len(events) != 1 || !slices.Equal(events[0].Files, []string{"forms/pack.form", "parcel.bpmn"}) {
		t.Fatalf("reported %+v, want one deployment of forms/pack.form and parcel.bpmn", events)
	}
	if _, err := f.rt.Form(context.Background(), "parcel", 1, "pack-form"); err != nil {
		t.Errorf("the form behind the folder link is not found: %v", err)
	}
	sync1(t, w, true, deploydir.Unchanged)

	// The swap: a new version folder, same sizes and times, ..data moved
	// to it at once, the old one removed.
	same := bytes.Replace(parcel, []byte(`name="Ship a parcel"`), []byte(`name="Ship a packet"`), 1)
	writeVersion(t, f.dir, "2026_01_02_03_04_06.2", same, mod)
	symlink(t, f.dir, "..2026_01_02_03_04_06.2", "..data_tmp")
	if err := os.Rename(filepath.Join(f.dir, "..data_tmp"), filepath.Join(f.dir, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(f.dir, "..2026_01_02_03_04_05.1")); err != nil {
		t.Fatal(err)
	}
	sync1(t, w, true, deploydir.Settling)
	sync1(t, w, true, deploydir.Deployed)
	if f.versions(t, "parcel") != 2 {
		t.Fatalf("after the swap parcel has %d versions", f.versions(t, "parcel"))
	}
	def, err := f.rt.Definition(context.Background(), "parcel", 2)
	if err != nil || !bytes.Contains(def.XML, []byte("Ship a packet")) {
		t.Fatalf("version 2 is not the swapped file: %v", err)
	}
}

// An empty folder deploys nothing; a missing one, or a file, is refused at
// New; models larger together than MaxBytes are refused and logged once.
func TestSyncEdges(t *testing.T) {
	t.Parallel()
	f := setup(t)
	w := f.watcher(t, deploydir.Options{MaxBytes: 1000})
	sync1(t, w, false, deploydir.Empty)
	if _, err := deploydir.New(f.rt, deploydir.Options{Dir: filepath.Join(f.dir, "missing")}); err == nil {
		t.Error("New accepted a missing folder")
	}
	f.write(t, "parcel.bpmn", fixtureFile(t, "parcel.bpmn"))
	if _, err := deploydir.New(f.rt, deploydir.Options{Dir: filepath.Join(f.dir, "parcel.bpmn")}); err == nil {
		t.Error("New accepted a file as the folder")
	}
	sync1(t, w, false, deploydir.Refused)
	sync1(t, w, true, deploydir.Unchanged)
	if n := strings.Count(f.log.String(), "more than the 1000"); n != 1 {
		t.Errorf("the size refusal is logged %d times, want once:\n%s", n, f.log.String())
	}
	if f.versions(t, "parcel") != 0 {
		t.Error("a refused folder deployed")
	}
}

// Start deploys at once and then polls at every tick: a change written
// while it runs is deployed once it held still for one poll, without
// another call. (A tick is taken only once the poll before it is done, so
// after the third tick the second poll has deployed.)
func TestStartPolls(t *testing.T) {
	t.Parallel()
	f := setup(t)
	parcel := fixtureFile(t, "parcel.bpmn")
	f.write(t, "parcel.bpmn", parcel)
	ticks := make(chan time.Time)
	w := f.watcher(t, deploydir.Options{Polls: ticks})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if f.versions(t, "parcel") != 1 {
		t.Fatalf("Start did not deploy: %d versions", f.versions(t, "parcel"))
	}
	f.write(t, "parcel.bpmn", bytes.Replace(parcel, []byte(`name="Ship a parcel"`), []byte(`name="Ship it"`), 1))
	ticks <- time.Time{} // settling
	if f.versions(t, "parcel") != 1 {
		t.Fatalf("a change was deployed before it held still: %d versions", f.versions(t, "parcel"))
	}
	ticks <- time.Time{} // deploys
	ticks <- time.Time{} // the deployment is done
	if f.versions(t, "parcel") != 2 {
		t.Fatalf("the change was not deployed: %d versions; log:\n%s", f.versions(t, "parcel"), f.log.String())
	}
	w.Stop()
	w.Stop() // twice is fine
}

// failingDeployer is a store that stopped answering after the first
// deployment: every later one fails with the same error.
type failingDeployer struct {
	rt    *runtime.Runtime
	calls atomic.Int64
}

func (d *failingDeployer) Deploy(ctx context.Context, files []runtime.File) (runtime.DeploymentResult, error) {
	if d.calls.Add(1) == 1 {
		return d.rt.Deploy(ctx, files)
	}
	return runtime.DeploymentResult{}, errors.New("store unreachable")
}

// A deployment that keeps failing for a reason other than the models is
// tried at every poll but logged once, and Stop ends the polling.
func TestPollLogsARepeatedFailureOnce(t *testing.T) {
	t.Parallel()
	f := setup(t)
	parcel := fixtureFile(t, "parcel.bpmn")
	f.write(t, "parcel.bpmn", parcel)
	d := &failingDeployer{rt: f.rt}
	ticks := make(chan time.Time)
	w, err := deploydir.New(d, deploydir.Options{Dir: f.dir, Polls: ticks, Logger: slog.New(slog.NewTextHandler(f.log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.write(t, "parcel.bpmn", bytes.Replace(parcel, []byte(`name="Ship a parcel"`), []byte(`name="Ship it"`), 1))
	for range 7 { // settling, then five failed deployments done (the seventh poll may be under way)
		ticks <- time.Time{}
	}
	w.Stop()
	if n := d.calls.Load(); n < 6 {
		t.Errorf("the deployment was tried %d times in all, want the start and at least 5 failing polls", n)
	}
	if n := strings.Count(f.log.String(), "store unreachable"); n != 1 {
		t.Errorf("the same failure is logged %d times, want once:\n%s", n, f.log.String())
	}
}
