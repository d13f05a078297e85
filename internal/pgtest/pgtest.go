// Package pgtest starts a throwaway PostgreSQL server for tests and hands
// out one fresh database per test.
//
// # How it runs
//
// The first test that asks for a database (DB, URL) starts the server:
// initdb into a temporary directory, then pg_ctl start with the server
// listening only on a unix socket in that directory (no TCP port, so
// parallel test binaries never collide). The server runs without fsync:
// the tests check semantics, not durability. TestMain stops it and removes
// the directory (Main). Every test gets its own database, created with
// CREATE DATABASE and dropped when the test ends.
//
// PostgreSQL refuses to run as root. When the tests run as root (CI), the
// server's commands run as the postgres system user of the Debian package
// (runuser -u postgres --) in a directory that user owns.
//
// The binaries are found on PATH, then in /usr/lib/postgresql/<version>/bin
// (where Debian's postgresql package puts them), newest version first, or
// in the directory GOBPM_PG_BIN names. When they are missing the tests
// that need PostgreSQL skip, except under CI=true, where they fail.
//
// # Example
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		url := pgtest.URL(t) // postgres://postgres@/t_…?host=/tmp/gobpm-pg-…
//		db, err := postgres.Open(ctx, url, postgres.Options{})
//		…
//	}
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// server is the PostgreSQL of this test binary. It is package state on
// purpose: one server serves every test of a binary, started by the first
// test that needs it and stopped by Main after the last one.
var server struct {
	once sync.Once
	srv  *Server
	err  error
	// skip is set when the binaries are missing (and CI is not true).
	skip string
}

// counter numbers the databases of this binary.
var counter atomic.Int64

// Server is a running throwaway PostgreSQL.
type Server struct {
	// Dir is the temporary directory: data/, the socket and the log.
	Dir string
	// bin is the directory of pg_ctl, initdb and postgres.
	bin string
	// asUser is the system user the server runs as ("" = the current one)
	// and runuser the command that switches to it.
	asUser, runuser string
	// admin is the connection string of the postgres database.
	admin string
}

// Main runs the tests of m and stops the server afterwards if a test
// started it. Use it as TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if server.srv != nil {
		if err := server.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// URL creates a fresh, empty database for the test and returns its
// connection URL; the database is dropped when the test ends. It skips
// the test when PostgreSQL is not installed (fails under CI=true).
func URL(tb testing.TB) string {
	tb.Helper()
	return shared(tb).URL(tb)
}

// URL creates a fresh, empty database on s for the test and returns its
// connection URL; the database is dropped when the test ends.
func (s *Server) URL(tb testing.TB) string {
	tb.Helper()
	name := fmt.Sprintf("t_%d_%d", os.Getpid(), counter.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.exec(ctx, `CREATE DATABASE `+name+` TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`); err != nil {
		tb.Fatalf("pgtest: create database: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			tb.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return s.url(name)
}

// Own starts a server of the test's own, stopped and removed when the
// test ends, for a test that reads the server's log (Log): the shared
// server's log mixes every test's statements. It costs an initdb (a
// second or two); it skips the test when PostgreSQL is not installed
// (fails under CI=true), as URL does.
func Own(tb testing.TB) *Server {
	tb.Helper()
	bin, err := findBin()
	if err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("pgtest: %v (CI=true: PostgreSQL tests must run)", err)
		}
		tb.Skip("pgtest: " + err.Error() + "; skipping the PostgreSQL test")
	}
	srv, err := Start(bin)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	// Registered first, so it runs after the cleanups of the databases
	// and connections the test opens on the server.
	tb.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
	})
	return srv
}

// Log returns what the server has logged so far (the file pg_ctl start
// writes, in Dir).
func (s *Server) Log() ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(s.Dir, "log"))
	if err != nil {
		return nil, fmt.Errorf("pgtest: read log: %w", err)
	}
	return b, nil
}

// shared returns the binary's server, starting it on first use.
func shared(tb testing.TB) *Server {
	tb.Helper()
	server.once.Do(func() {
		bin, err := findBin()
		if err != nil {
			if os.Getenv("CI") == "true" {
				server.err = fmt.Errorf("%w (CI=true: PostgreSQL tests must run; .ci/run installs the postgresql package)", err)
			} else {
				server.skip = err.Error() + " (Debian: apt-get install postgresql); skipping the PostgreSQL tests"
			}
			return
		}
		server.srv, server.err = Start(bin)
	})
	switch {
	case server.skip != "":
		tb.Skip("pgtest: " + server.skip)
	case server.err != nil:
		tb.Fatalf("pgtest: %v", server.err)
	}
	return server.srv
}

// findBin returns the directory holding pg_ctl and initdb.
func findBin() (string, error) {
	if dir := os.Getenv("GOBPM_PG_BIN"); dir != "" {
		if isExec(filepath.Join(dir, "pg_ctl")) && isExec(filepath.Join(dir, "initdb")) {
			return dir, nil
		}
		return "", fmt.Errorf("GOBPM_PG_BIN=%s holds no pg_ctl and initdb", dir)
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dir := filepath.Dir(p)
		if isExec(filepath.Join(dir, "initdb")) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
	for _, dir := range dirs {
		if isExec(filepath.Join(dir, "pg_ctl")) && isExec(filepath.Join(dir, "initdb")) {
			return dir, nil
		}
	}
	return "", errors.New("PostgreSQL is not installed: no pg_ctl on PATH or in /usr/lib/postgresql/*/bin")
}

// versionOf reads the major version out of /usr/lib/postgresql/<v>/bin.
func versionOf(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

// isExec reports whether path is an executable file.
func isExec(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// findRunuser finds util-linux's runuser, which is often in /usr/sbin,
// off a non-root PATH.
func findRunuser() (string, error) {
	if p, err := exec.LookPath("runuser"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/sbin/runuser", "/sbin/runuser"} {
		if isExec(p) {
			return p, nil
		}
	}
	return "", errors.New("running as root and runuser (util-linux) is missing: cannot run PostgreSQL as the postgres user")
}

// Start initializes and starts a server with the binaries in bin. Stop
// stops it and removes its directory.
func Start(bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "gobpm-pg-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	s := &Server{Dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		// initdb and postgres refuse root: run them as the package's user,
		// in a directory it owns.
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root and there is no postgres user to run PostgreSQL as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
		s.asUser = "postgres"
		if s.runuser, err = findRunuser(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	// Only a unix socket in dir (listen_addresses empty): nothing on the
	// network, and no port shared with another test binary.
	opts := strings.Join([]string{
		"-c listen_addresses=''",
		"-c unix_socket_directories=" + dir,
		"-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
		"-c max_connections=300", "-c shared_buffers=32MB",
	}, " ")
	if out, err := s.run("pg_ctl", "start", "-D", data, "-w", "-t", "60", "-l", filepath.Join(dir, "log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, log)
	}
	s.admin = s.url("postgres")
	return s, nil
}

// run runs a PostgreSQL command of bin, as asUser when set.
func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmdline := append([]string{filepath.Join(s.bin, name)}, args...)
	if s.asUser != "" {
		cmdline = append([]string{s.runuser, "-u", s.asUser, "--"}, cmdline...)
	}
	cmd := exec.Command(cmdline[0], cmdline[1:]...)
	cmd.Dir = s.Dir
	return cmd.CombinedOutput()
}

// url is the connection URL of database name over the unix socket.
func (s *Server) url(name string) string {
	q := url.Values{"host": {s.Dir}, "sslmode": {"disable"}}
	return "postgres://postgres@/" + name + "?" + q.Encode()
}

// exec runs one statement in the postgres database.
func (s *Server) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// Stop stops the server (fast shutdown) and removes its directory.
func (s *Server) Stop() error {
	out, err := s.run("pg_ctl", "stop", "-D", filepath.Join(s.Dir, "data"), "-m", "fast", "-w")
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return os.RemoveAll(s.Dir)
}
